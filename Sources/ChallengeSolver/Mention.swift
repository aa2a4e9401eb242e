import Foundation

/// A number of a challenge with the words around it: what tells an operand from a distractor.
struct Mention: Sendable {
    var number: ReadNumber
    /// Position among the segments.
    var index: Int
    /// Position among the live (not self-corrected) numbers.
    var ordinal: Int
    /// Collapsed letters of the words since the previous number (or the start), fillers next to the number removed.
    var before: String
    /// Collapsed letters of the words up to the next number, fillers next to the number removed.
    var after: String
    /// An operator symbol stands right before the number ("~ x FiVe ClAwS"): it is an operand.
    var afterOperator = false
    /// `before` without any filler word ("each of hmm the two claws" → "eachofthe").
    var bare: String = ""

    var value: Decimal { number.value }

    /// What the number measures, from the unit after it.
    var quantity: Quantity? { Quantity.of(after) }

    /// The live numbers of `segments`, in order.
    static func all(in segments: [Segment]) -> [Mention] {
        var out: [Mention] = []
        for (index, segment) in segments.enumerated() {
            guard case .number(let number) = segment, !number.dropped else { continue }
            var previous = index - 1
            while previous >= 0, case .word(let word) = segments[previous], OperationCues.fillers.contains(word) {
                previous -= 1
            }
            var afterOperator = false
            if previous >= 0, case .symbol = segments[previous] { afterOperator = true }
            out.append(
                Mention(
                    number: number, index: index, ordinal: out.count,
                    before: letters(segments, from: index - 1, step: -1),
                    after: letters(segments, from: index + 1, step: 1), afterOperator: afterOperator,
                    bare: letters(segments, from: index - 1, step: -1, fillers: false)))
        }
        return out
    }

    /// The words from `start` walking by `step` until a number, collapsed and joined, fillers removed.
    static func letters(_ segments: [Segment], from start: Int, step: Int, fillers: Bool = true) -> String {
        var words: [String] = []
        var probe = start
        while probe >= 0, probe < segments.count {
            if case .number(let number) = segments[probe] {
                guard number.dropped else { break }
                // Walking back over a self-correction ("has twenty five? oops no forty two claws"): its words are
                // not context, the words before the corrected number are.
                if step < 0 { words.removeAll() }
            }
            // Fillers are stripped at the number's side only: as fragments they may be parts of words ("lob st er").
            if case .word(let word) = segments[probe], fillers || !OperationCues.fillers.contains(word) {
                words.append(word)
            }
            probe += step
        }
        if step < 0 { words.reverse() }
        let joined = ChallengeNormalizer.collapse(words.joined())
        // Fillers split into fragments ("uU hHm") are not filler words; strip them at the number's side.
        let pattern = step < 0 ? trailingFillers : leadingFillers
        return pattern.stringByReplacingMatches(
            in: joined, range: NSRange(joined.startIndex..., in: joined), withTemplate: "")
    }

    /// `before` and `before` without a stray last letter split off the number ("are n NiInE"), fillers stripped:
    /// the endings to test for a lead word.
    var leads: [String] {
        let shorter = String(before.dropLast())
        let stripped = Self.trailingFillers.stringByReplacingMatches(
            in: shorter, range: NSRange(shorter.startIndex..., in: shorter), withTemplate: "")
        return [before, stripped, bare]
    }

    // The patterns are fixed and valid.
    static let trailingFillers = try! NSRegularExpression(
        pattern: "(u|uhm|um|uh|hm|erm|er|ah|oh|like|blah|swoth|glar|lxq|lxobqstwer|physxics|ha)+$")
    static let leadingFillers = try! NSRegularExpression(
        pattern: "^(uhm|um|uh|hm|erm|er|ah|oh|like|blah|swoth|glar|lxq|lxobqstwer|physxics|velocity|lobster)+")
}

/// The kind of quantity a number measures, from the unit word after it.
enum Quantity: Sendable, Equatable {
    case force, speed, length, time, mass

    /// The quantity of a number whose following letters are `after` (collapsed, fillers removed).
    static func of(_ after: String) -> Quantity? {
        let head = String(after.prefix(24))
        if matches(forcePattern, head) { return .force }
        if matches(lengthPattern, head) {
            return matches(perTimePattern, head) ? .speed : .length
        }
        if matches(timePattern, head) { return .time }
        if head.hasPrefix("kilog") || head.hasPrefix("kg") || head.hasPrefix("gram") { return .mass }
        return nil
    }

    /// The quantity a question asks for ("what is the total force" → force), from the letters after its last
    /// question word.
    static func asked(in stream: String) -> Quantity? {
        let starts = ["what", "how", "find"].compactMap { stream.range(of: $0, options: .backwards)?.lowerBound }
        guard let start = starts.max() else { return nil }
        let question = stream[start...]
        if question.contains("forc") { return .force }
        if question.contains("velo") || question.contains("spe") || question.contains("velaw") { return .speed }
        if question.contains("far") || question.contains("distanc") { return .length }
        return nil
    }

    private static func matches(_ pattern: NSRegularExpression, _ text: String) -> Bool {
        pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    // The patterns are fixed and valid.
    static let forcePattern = try! NSRegularExpression(pattern: "^(n[aeiouwy]{0,5}t[aeiouwy]{0,3}n|n$|nand)")
    static let lengthPattern = try! NSRegularExpression(
        pattern: "^(c[a-z]{0,6}?m[a-z]{0,5}?(rs?|ts?)|cm|m[ea]{1,2}t|m(per|ps|s|$)|kilomet)")
    static let perTimePattern = try! NSRegularExpression(pattern: "^[a-z]{0,14}?(per|ps)?(sec|s$|min|hour)")
    static let timePattern = try! NSRegularExpression(pattern: "^(sec|minut|hour)")
}
