import Foundation

/// Streams, operator symbols and symbols inside compounds: the pieces of a reading around the numbers.
extension ReadingSet {
    /// The collapsed letters of the segments: operands as `#`, other live numbers as `@`, symbols left out; `clean`
    /// also leaves out fillers, with a `|` in their place: the words on either side stay apart ("w <ha> ats" is no
    /// "watts"), and cues of several words still match across it.
    static func stream(_ segments: [Segment], operands: Set<Int>, clean: Bool) -> String {
        var out = ""
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .word(let word):
                if !clean || !OperationCues.fillers.contains(word) {
                    out += word
                } else if !out.isEmpty, out.last != "|" {
                    out += "|"
                }
            case .number(let number):
                if !number.dropped { out += operands.contains(index) ? "#" : "@" }
            case .symbol, .attached: break
            }
        }
        return ChallengeNormalizer.collapse(out)
    }

    /// The collapsed words of the segments with `|` between them and numbers as `#`, to tell where words start.
    static func wordStream(_ segments: [Segment]) -> String {
        segments.compactMap { segment -> String? in
            switch segment {
            case .word(let word): ChallengeNormalizer.collapse(word)
            case .number: "#"
            case .symbol, .attached: nil
            }
        }.joined(separator: "|")
    }

    /// The operation of an operator symbol.
    static func operation(of symbol: Character) -> ArithmeticOperation? {
        switch symbol {
        case "+": .add
        case "-": .subtract
        case "*", "×", "x": .multiply
        case "/", "÷": .divide
        default: nil
        }
    }

    /// Symbols between the segments `from` and `to` that stand tightly between the two numbers: only a unit
    /// (and fillers) between the first number and the symbol, only fillers between the symbol and the second
    /// ("twenty three newtons * seven", "twenty five - seven"). Anywhere else a symbol is noise.
    static func symbolOperations(_ segments: [Segment], from: Int, to: Int) -> [(
        symbol: Character, operation: ArithmeticOperation
    )] {
        guard from + 1 < to else { return [] }
        var out: [(Character, ArithmeticOperation)] = []
        for index in (from + 1)..<to {
            let symbol: Character
            switch segments[index] {
            case .symbol(let character): symbol = character
            case .attached(let character, inside: false): symbol = character
            default: continue
            }
            guard let operation = operation(of: symbol) else { continue }
            let left = words(segments, (from + 1)..<index)
            let right = words(segments, (index + 1)..<to)
            guard let left, let right, isFillers(right), isUnitPhrase(left) else { continue }
            out.append((symbol, operation))
        }
        return out
    }

    /// `*`, `x` and `+` between the two numbers but not tightly: usually noise ("um * and has two claws"), but
    /// rare enough as noise that a reading with another operation is doubtful.
    /// A symbol with a clause word between it and a number ("um * and has two claws", "the * other claw") is noise.
    static func looseSymbolOperations(_ segments: [Segment], from: Int, to: Int) -> [(
        symbol: Character, operation: ArithmeticOperation
    )] {
        guard from + 1 < to else { return [] }
        return ((from + 1)..<to).compactMap { index in
            switch segments[index] {
            case .symbol(let symbol), .attached(let symbol, inside: false):
                guard "*×x+".contains(symbol), let operation = operation(of: symbol) else { return nil }
                // Another number between the symbol and an operand: the symbol belongs to that one.
                guard let left = words(segments, (from + 1)..<index), let right = words(segments, (index + 1)..<to),
                    !hasClauseWord(left), !hasClauseWord(right)
                else { return nil }
                return (symbol, operation)
            default: return nil
            }
        }
    }

    /// Words that start or join a clause: a symbol next to them is punctuation, not an operator.
    static let clauseWords = [
        "and", "but", "the", "other", "while", "with", "then", "what", "how", "claw", "lobst", "its",
    ]

    /// Whether `letters` hold a clause word or an operation cue.
    static func hasClauseWord(_ letters: String) -> Bool {
        clauseWords.contains { letters.contains($0) } || !OperationCues.hits(in: letters).isEmpty
    }

    /// Symbols stuck inside words ("FoRcE*GrOwTh"): never the operator for sure, but a reason to doubt a reading
    /// with another operation.
    static func insideSymbolOperations(_ segments: [Segment]) -> [(symbol: Character, operation: ArithmeticOperation)] {
        segments.indices.compactMap { index in
            // A "+" inside a word is noise ("NeW+ToNs"), and so is a "*" inside a short one ("i*S"); a "*" between
            // two longer words may join two quantities ("FoRcE*GrOwTh").
            guard case .attached(let symbol, inside: true) = segments[index], symbol != "+",
                let operation = operation(of: symbol), index > 0, index + 1 < segments.count,
                case .word(let left) = segments[index - 1], case .word(let right) = segments[index + 1],
                left.count >= 3, right.count >= 3
            else { return nil }
            return (symbol, operation)
        }
    }

    /// The collapsed letters of the words in `range` (fillers included: fragments of "umm" may not be fillers on
    /// their own), or nil when a number lies in it.
    static func words(_ segments: [Segment], _ range: Range<Int>) -> String? {
        var out = ""
        for index in range {
            switch segments[index] {
            case .word(let word): out += word
            case .number(let number): if !number.dropped { return nil }
            case .symbol, .attached: break
            }
        }
        return ChallengeNormalizer.collapse(out)
    }

    /// Whether `letters` is empty, fillers, or a unit with fillers around ("newtons", "um meters per second").
    static func isUnitPhrase(_ letters: String) -> Bool {
        if letters.isEmpty { return true }
        return unitPhrase.firstMatch(in: letters, range: NSRange(letters.startIndex..., in: letters)) != nil
    }

    /// Only fillers ("um", "uh m").
    /// Only fillers, or a lone letter split off the number that follows ("- S sIx").
    static func isFillers(_ letters: String) -> Bool {
        letters.count <= 1
            || fillerRun.firstMatch(in: letters, range: NSRange(letters.startIndex..., in: letters)) != nil
    }

    // The patterns are fixed and valid.
    static let fillerPattern = "(um|uh|uhm|hm|er|like|ha|swoth|glar|blah|lxq|lxobqstwer|physxics|lobster)*"
    static let fillerRun = try! NSRegularExpression(pattern: "^\(fillerPattern)$")
    static let unitPhrase = try! NSRegularExpression(
        pattern: "^\(fillerPattern)(n[aeiouwy]{0,5}t[aeiouwy]{0,3}ns?|n|c[a-z]{0,6}?m[a-z]{0,5}?(rs?|ts?)|cms?"
            + "|m[ea]{0,2}t[ea]{0,2}rs?|m|kilograms?|kg|seconds?|secs?)?\(fillerPattern)"
            + "((per|p)?\(fillerPattern)(seconds?|secs?|s|minutes?|mins?|hours?))?\(fillerPattern)$")

    /// Symbols between two restatements of the operands in the question ("… the product of twenty three * seven"):
    /// the question names the operation outright.
    static func restatedExpressions(_ segments: [Segment], mentions: [Mention], operands: [Mention]) -> [(
        ArithmeticOperation, String
    )] {
        guard operands.count == 2, mentions.count > 2 else { return [] }
        let values = Set(operands.map(\.value))
        var out: [(ArithmeticOperation, String)] = []
        for (left, right) in zip(mentions, mentions.dropFirst())
        where Set([left.value, right.value]) == values && (right.ordinal > operands[1].ordinal) {
            for found in symbolOperations(segments, from: left.index, to: right.index) {
                out.append((found.operation, "restated '\(left.value) \(found.symbol) \(right.value)'"))
            }
        }
        return out
    }

    // MARK: - Symbols inside compounds

    /// The segmentations where one compound read across a symbol ("tHiRtY / TwO") is split at it instead.
    static func splitVariants(_ segments: [Segment]) -> [[Segment]] {
        var out: [[Segment]] = []
        for (index, segment) in segments.enumerated() {
            guard case .number(let number) = segment, !number.dropped, let across = number.acrossSymbol else {
                continue
            }
            var variant = segments
            variant.replaceSubrange(
                index...index,
                with: [
                    .number(ReadNumber(value: across.tens, certainty: number.certainty, notes: [])),
                    .symbol(across.symbol),
                    .number(ReadNumber(value: across.unit, certainty: number.certainty, notes: [])),
                ])
            out.append(variant)
        }
        return out
    }
}
