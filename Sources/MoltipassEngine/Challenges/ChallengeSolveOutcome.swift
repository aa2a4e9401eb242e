import ChallengeSolver
import Foundation

/// What `moltipass challenge solve` reports: the answer for stdout, a message for stderr and the exit status.
public struct ChallengeSolveOutcome: Sendable, Equatable {
    public var solution: Solution

    /// Solves `text` with `config`.
    public static func solve(_ text: String, with config: ChallengeSolverConfig) async -> ChallengeSolveOutcome {
        ChallengeSolveOutcome(solution: await config.solve(text))
    }

    /// The answer line (`"15.00"`), or nil for a decline.
    public var answer: String? { solution.answerText }

    /// `.ok` for an answer, `.declined` (13) otherwise.
    public var exitStatus: ExitStatus { solution.isDeclined ? .declined : .ok }

    /// The stderr text: the reason for a decline; with `explain`, the confidence and reading of an answer.
    public func message(explain: Bool) -> String? {
        switch solution {
        case .declined(let reason, _):
            return "moltipass: declined: \(reason)"
        case .answer(_, let confidence, let operation, let operands):
            guard explain else { return nil }
            let reading =
                operands.count == 2 && operation != nil
                ? "\(operands[0]) \(operation!.symbol) \(operands[1])" : "from the solver command"
            return "confidence \(String(format: "%.2f", confidence)): \(reading)"
        }
    }
}

/// `challenge solve --json`: one object for scripts (docs/challenges.md). `result` is `answered` or
/// `declined`; an answer has `answer` (two decimals, as sent to Moltbook) and, from the built-in
/// solver, the `operation` and `operands` it read; a decline has `reason`; both have `confidence`.
extension ChallengeSolveOutcome: Encodable {
    enum CodingKeys: String, CodingKey {
        case result, answer, confidence, operation, operands, reason
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(solution.confidence, forKey: .confidence)
        switch solution {
        case .answer(let answer, _, let operation, let operands):
            try container.encode("answered", forKey: .result)
            try container.encode(answer, forKey: .answer)
            try container.encodeIfPresent(operation, forKey: .operation)
            if !operands.isEmpty { try container.encode(operands, forKey: .operands) }
        case .declined(let reason, _):
            try container.encode("declined", forKey: .result)
            try container.encode(reason, forKey: .reason)
        }
    }
}
