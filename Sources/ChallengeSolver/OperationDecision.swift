/// The operation a challenge asks for, decided from an explicit operator symbol or the strongest cue words.
struct OperationDecision: Sendable {
    var operation: ArithmeticOperation?
    /// 0…1: how sure the choice of operation is.
    var certainty: Double
    /// The operand a scaling word implies ("doubles" → 2), when the text gives only one number.
    var implicitOperand: Int?
    var notes: [String] = []

    static func decide(
        hits: [OperationCues.Cue], explicit: Character?, stream: String
    ) -> OperationDecision {
        var scores: [ArithmeticOperation: Int] = [:]
        var cueWords: [ArithmeticOperation: [String]] = [:]
        for cue in hits {
            scores[cue.operation] = max(scores[cue.operation] ?? 0, cue.weight)
            cueWords[cue.operation, default: []].append(cue.text)
        }
        let implicit = hits.compactMap(\.implicitOperand).first

        if let explicit {
            let operation: ArithmeticOperation
            var certainty = 0.95
            switch explicit {
            case "*", "×": operation = .multiply
            case "+": operation = .add
            case "-": operation = .subtract
            default:
                operation = .divide
                certainty = 0.75
            }
            let strongOther = scores.contains { $0.key != operation && $0.value >= 3 }
            if strongOther { certainty *= 0.75 }
            var decision = OperationDecision(operation: operation, certainty: certainty, implicitOperand: implicit)
            decision.notes.append("explicit '\(explicit)'" + (strongOther ? " against other cue words" : ""))
            return decision
        }

        // "acceleration" from a force and a mass is a division; "accelerates by" is an addition.
        if stream.contains("aceleration"), stream.contains("mas") {
            scores[.divide] = max(scores[.divide] ?? 0, 3)
            cueWords[.divide, default: []].append("acceleration from mass")
        }

        let ranked = scores.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.rawValue < $1.key.rawValue }
        guard let best = ranked.first else {
            return OperationDecision(operation: nil, certainty: 0, notes: ["no operation cue"])
        }
        var decision = OperationDecision(operation: best.key, certainty: 1, implicitOperand: implicit)
        let describe = { (operation: ArithmeticOperation) in
            "\(operation.rawValue) (\((cueWords[operation] ?? []).joined(separator: ", ")))"
        }
        if best.value == 1 {
            // Only weak cues: "total" alone is the most common addition; anything else is a guess.
            let onlyTotal = best.key == .add && (cueWords[.add] ?? []).contains("total")
            decision.certainty = onlyTotal ? 0.9 : 0.75
        }
        if ranked.count > 1 {
            let second = ranked[1]
            if second.value == best.value {
                decision.certainty = 0.4
                decision.notes.append("conflicting cues: \(describe(best.key)) vs \(describe(second.key))")
            } else if second.value >= 2 {
                decision.certainty *= 0.85
                decision.notes.append("weaker competing cue: \(describe(second.key))")
            }
        }
        // A slowing lobster and a "total" velocity: the server rejected the difference (challenges.md).
        if best.key == .subtract, (cueWords[.add] ?? []).contains("total") {
            decision.operation = .add
            decision.certainty = 0.5
            decision.notes.append("'total' with \(describe(.subtract)): read as a sum, unsure")
        }
        return decision
    }
}
