import Foundation

/// The operation the words of one reading name: the strongest cues win, equal cues for different operations are a
/// conflict unless a known framing settles them.
struct OperationDecision: Sendable {
    var operation: ArithmeticOperation?
    /// How strongly the words name it (nil without any cue).
    var strength: OperationCues.Strength?
    /// The operand a scaling word implies ("doubles" → 2), for a text with one number.
    var implicitOperand: Int?
    /// Why the words name no single operation, when they name several.
    var conflict: String?
    var notes: [String] = []

    /// Whether the only cues are weak ones for an addition ("total", "other claw").
    var onlyWeak: Bool { strength == .weak }

    /// Decides from the cues found in the streams of one reading; `extra` are operations named outright elsewhere
    /// (an operator symbol in a restated expression, "twenty three * seven").
    static func decide(
        hits: [OperationCues.Cue], stream: String, full: String? = nil, extra: [(ArithmeticOperation, String)] = []
    ) -> OperationDecision {
        var cues: [(operation: ArithmeticOperation, strength: OperationCues.Strength, text: String, count: Bool)] =
            hits.map { ($0.operation, $0.strength, $0.text, $0.isCount) }
        var notes: [String] = []
        // "has twenty three claws and gains seven more, how many claws": the question counts the things the count
        // framing counts, so it is no multiplication.
        if asksForCountedThing(stream) || asksForCountedThing(full ?? stream), cues.contains(where: \.count) {
            cues.removeAll(where: \.count)
            notes.append("count framing ignored: the question counts the same things")
        }
        cues += extra.map { ($0.0, .decisive, $0.1, false) }
        // "acceleration" from a force and a mass is a division ("accelerates by" is an addition).
        if stream.contains("aceleration"), stream.contains("mas") {
            cues.append((.divide, .usual, "acceleration from mass", false))
        }
        guard let top = cues.map(\.strength).max() else {
            return OperationDecision(notes: notes + ["no operation cue"])
        }
        var leading = cues.filter { $0.strength == top }
        let describe = { (operation: ArithmeticOperation) -> String in
            let words = Set(leading.filter { $0.operation == operation }.map(\.text)).sorted()
            return "\(operation.rawValue) (\(words.joined(separator: ", ")))"
        }
        var operations = Set(leading.map(\.operation))
        if operations.count > 1, top == .usual {
            let countOnly = leading.filter { $0.operation == .multiply }.allSatisfy { $0.count || $0.text == "each" }
            // "each" and "N lobsters" in a sharing problem are the share and the sharers, not a multiplication.
            if operations.contains(.divide), countOnly {
                leading.removeAll { $0.operation == .multiply }
            }
            operations = Set(leading.map(\.operation))
        }
        guard operations.count == 1, let operation = operations.first else {
            let names = operations.sorted { $0.rawValue < $1.rawValue }.map(describe).joined(separator: " vs ")
            return OperationDecision(conflict: "conflicting cues: \(names)", notes: notes)
        }
        let weaker = cues.filter { $0.strength < top && $0.operation != operation }
        if !weaker.isEmpty {
            let words = Set(weaker.map(\.text)).sorted().joined(separator: ", ")
            notes.append("\(describe(operation)) over weaker cue(s): \(words)")
        }
        // "… chills it by seven, what is the total speed": a change "by N" says its direction in its verb; when no
        // verb or framing named the operation, "total" or "more" cannot tell a rise from a fall.
        if top == .weak, stream.range(of: "by[|]?#", options: .regularExpression) != nil {
            return OperationDecision(
                conflict: "a change 'by N' with a verb the solver does not know, and only \(describe(operation))",
                notes: notes)
        }
        let texts = Set(cues.map(\.text))
        // A slowing lobster and a "total" velocity: the server rejected the difference (challenges.md).
        let subtractQuestion = ["remain", "net", "left", "diference", "subtract", "minus"].contains {
            stream.contains($0)
        }
        if operation == .subtract, top < .decisive, texts.contains("total"), !subtractQuestion {
            return OperationDecision(
                conflict: "'total' with \(describe(.subtract)): sum or difference unclear", notes: notes)
        }
        // Sharing with a "total" may be a division or the total of the shares.
        if operation == .divide, top < .decisive, !texts.isDisjoint(with: ["total", "combined", "the sum", "sum of"]) {
            return OperationDecision(conflict: "'total' with \(describe(.divide))", notes: notes)
        }
        let implicit = hits.filter { $0.operation == operation }.compactMap(\.implicitOperand).first
        return OperationDecision(operation: operation, strength: top, implicitOperand: implicit, notes: notes)
    }

    /// Whether the question counts the things an operand counts ("has # claws and gains # more … how many claws",
    /// "# lobsters and # more lobsters join … how many lobsters"): then both operands count the same things and a
    /// count framing is no multiplication.
    static func asksForCountedThing(_ stream: String) -> Bool {
        var index = stream.startIndex
        while let hash = stream[index...].firstIndex(of: "#") {
            index = stream.index(after: hash)
            var rest = String(stream[index...].prefix(24)).replacingOccurrences(of: "|", with: "")
            rest = leadingNoise.stringByReplacingMatches(
                in: rest, range: NSRange(rest.startIndex..., in: rest), withTemplate: "")
            // The counted noun starts within a few letters ("thre e lobsters").
            for offset in 0...2 {
                let noun = rest.dropFirst(offset).prefix(4)
                guard noun.count == 4, noun.allSatisfy(\.isLetter) else { continue }
                let pattern =
                    "how[a-z|]{0,12}?many[a-z|]{0,12}?" + NSRegularExpression.escapedPattern(for: String(noun))
                if stream.range(of: pattern, options: .regularExpression) != nil { return true }
            }
        }
        return false
    }

    // The pattern is fixed and valid.
    static let leadingNoise = try! NSRegularExpression(
        pattern: "^(uhm|um|uh|hm|er|like|more|blah|swoth|glar|lxq|lxobqstwer|physxics|velocity)+")
}
