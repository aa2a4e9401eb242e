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
