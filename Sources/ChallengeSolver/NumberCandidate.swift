/// A number in a challenge with the words around it, for telling operands from distractors.
struct NumberCandidate: Sendable {
    var number: ReadNumber
    /// Position among the segments.
    var index: Int
    /// Collapsed words since the previous number.
    var before: String
    /// Collapsed words up to the next number.
    var after: String

    /// Words before a number that make "N claws" an operand ("there are four claws", "split between two claws").
    static let countLeads = ["are", "has", "have", "betwen", "among", "of", "into", "by", "and", "with"]

    /// Every number of `segments`, in order.
    static func all(in segments: [Segment]) -> [NumberCandidate] {
        var out: [NumberCandidate] = []
        for (index, segment) in segments.enumerated() {
            guard case .number(let number) = segment else { continue }
            var before = ""
            var probe = index - 1
            while probe >= 0, case .word(let word) = segments[probe] {
                before = word + before
                probe -= 1
            }
            var after = ""
            probe = index + 1
            while probe < segments.count, case .word(let word) = segments[probe] {
                after += word
                probe += 1
            }
            out.append(
                NumberCandidate(
                    number: number, index: index, before: ChallengeNormalizer.collapse(before),
                    after: ChallengeNormalizer.collapse(after)))
        }
        return out
    }

    /// With more than two numbers, drops the known distractors: a "one" ("with one claw"), a number after "with"
    /// or before "big", and "two claws" that is not a count of the problem.
    static func withoutDistractors(_ candidates: [NumberCandidate], notes: inout [String]) -> [NumberCandidate] {
        var kept = candidates
        guard kept.count > 2 else { return kept }
        let rules: [(String, (NumberCandidate) -> Bool)] = [
            ("a 'one'", { $0.number.value == 1 }),
            (
                "'with N claws'",
                { ($0.before.hasSuffix("with") && $0.after.hasPrefix("claw")) || $0.after.hasPrefix("big") }
            ),
            (
                "'N claws' outside the problem",
                { candidate in
                    candidate.after.hasPrefix("claw") && !countLeads.contains { candidate.before.hasSuffix($0) }
                }
            ),
        ]
        for (name, rule) in rules where kept.count > 2 {
            let remaining = kept.filter { !rule($0) }
            if remaining.count >= 2, remaining.count < kept.count {
                notes.append("ignored \(kept.count - remaining.count) distractor number(s): \(name)")
                kept = remaining.map {
                    var candidate = $0
                    candidate.number.certainty *= 0.95
                    return candidate
                }
            }
        }
        return kept
    }
}
