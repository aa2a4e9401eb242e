import Foundation
import MoltipassEngine

/// `plan --fail-on deferred,skipped,failed,uncertain`: which outcomes make a plan a finding
/// (exit `planFindings`), for checking recipes in CI.
public struct PlanFailOn: Sendable, Equatable {
    /// The outcomes `--fail-on` accepts.
    public static let accepted: [PlanResult.Event.Outcome] = [.deferred, .skipped, .failed, .uncertain]

    public var outcomes: Set<PlanResult.Event.Outcome>

    public init(outcomes: Set<PlanResult.Event.Outcome>) { self.outcomes = outcomes }

    /// Parses a comma list; an unknown or empty value is an error naming the accepted ones.
    public init(parsing text: String) throws {
        var outcomes: Set<PlanResult.Event.Outcome> = []
        let names = Self.accepted.map(\.rawValue).joined(separator: ", ")
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: .whitespaces)
            guard let outcome = PlanResult.Event.Outcome(rawValue: name), Self.accepted.contains(outcome) else {
                throw PlanError("--fail-on takes a comma list of \(names); \"\(name)\" is none of them")
            }
            outcomes.insert(outcome)
        }
        self.outcomes = outcomes
    }

    /// How many rows of `result` have each outcome named, in the accepted order; empty when none.
    public func findings(in result: PlanResult) -> [(PlanResult.Event.Outcome, Int)] {
        var counts: [PlanResult.Event.Outcome: Int] = [:]
        for event in result.events where outcomes.contains(event.outcome) { counts[event.outcome, default: 0] += 1 }
        return Self.accepted.compactMap { outcome in counts[outcome].map { (outcome, $0) } }
    }

    /// The line on stderr for `findings`: `plan: --fail-on: 143 deferred, 2 skipped`.
    public static func message(_ findings: [(PlanResult.Event.Outcome, Int)]) -> String {
        "moltipass: --fail-on: " + findings.map { "\($0.1) \($0.0.rawValue)" }.joined(separator: ", ")
            + " in the plan"
    }
}
