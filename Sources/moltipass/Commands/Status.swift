import ArgumentParser
import Foundation
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan
import Recipes
import Storage

/// `moltipass status RECIPE…`: limits, pauses, the inbox, pending writes and next occurrences, read-only.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Show per agent and class the next allowed time, budgets, pauses, the inbox, pending writes and next runs.",
        discussion: "Never writes the state. With --health: exit 0 when healthy, 1 with the reasons otherwise.")

    @Argument(help: "Recipe files (for the agents and their schedules).")
    var recipes: [String]

    @Option(help: "The state database (default: $MOLTIPASS_STATE, else $XDG_STATE_HOME/moltipass/state.sqlite).")
    var state: String?

    @Flag(help: "Print JSON on stdout.")
    var json = false

    @Flag(
        help: ArgumentHelp(
            "Health check for containers: exit 1 naming every problem (--json: {healthy, problems}).",
            discussion: """
                Unhealthy when no engine ticked within --max-tick-age; an agent is paused by anything but the \
                operator (failed challenges, suspension, refused key, auth breaker); a daemon recorded a key it \
                cannot read or a recipe it skipped; the server says an agent is not claimed; a content queue \
                has no item left; the state cannot be written; a recipe file is invalid.
                """))
    var health = false

    @Option(
        help: ArgumentHelp(
            "With --health: the oldest acceptable engine tick (15m, 1h; a bare number is seconds).",
            valueName: "duration"))
    var maxTickAge = "15m"

    @Option(help: .hidden)
    var now: String?

    func validate() throws {
        if DurationOption.seconds(maxTickAge) == nil {
            throw ValidationError(DurationOption.problem("--max-tick-age", maxTickAge))
        }
    }

    func run() async throws {
        try await reportingFailures {
            let environment = ProcessInfo.processInfo.environment
            // With --health an invalid file is one of the problems (the daemon skips it and runs
            // the others); without, it is an error as in `validate`.
            let (recipes, invalid) = RunSession.loadValidRecipes(self.recipes)
            if !invalid.isEmpty, !health {
                printError(Diagnostics(invalid).description)
                return .invalidRecipe
            }
            guard let target = StateLocation.target(flag: state, environment: environment) else {
                throw ValidationError("no state path: give --state or set MOLTIPASS_STATE")
            }
            let instant = try NowOption.resolve(now)
            let snapshot = try await target.readOnly()
            defer { Task { await StateTarget.close(snapshot) } }
            let report = try await StatusReport.make(recipes: recipes, store: snapshot, now: instant)
            if health {
                let problems = try await HealthCheck.problems(
                    report: report, recipes: recipes, invalid: invalid, store: snapshot, state: target,
                    maxTickAge: DurationOption.seconds(maxTickAge) ?? 900)
                if json {
                    try printEncoded(HealthOutput(healthy: problems.isEmpty, problems: problems))
                } else if problems.isEmpty {
                    print("healthy")
                }
                for problem in problems { printError("unhealthy: \(problem.text)") }
                return problems.isEmpty ? .ok : .failure
            }
            if json {
                try printEncoded(report)
            } else if !health {
                print(report.text)
            }
            return .ok
        }
    }
}

/// `status --health --json`: whether healthy, and every problem (kind, agent, message).
struct HealthOutput: Encodable {
    var healthy: Bool
    var problems: [HealthProblem]
}
