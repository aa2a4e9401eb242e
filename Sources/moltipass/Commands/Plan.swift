import ArgumentParser
import Foundation
import MoltipassKit

/// `moltipass plan RECIPE… --for 7d`: the engine on a virtual clock against a simulated Moltbook.
struct Plan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Simulate what recipes will do over a horizon, without network and without writing the state.",
        discussion: """
            Runs the same engine as `run` on a virtual clock against an in-process simulated Moltbook, \
            starting from a copy of the state file. Prints a timeline and a summary (--json: the schema in \
            docs/plan.md; --html FILE: a page with a timeline chart). Exit 0, 64 wrong command line, \
            65 invalid recipe.
            """)

    @Argument(help: "Recipe files.")
    var recipes: [String]

    @Option(name: .customLong("for"), help: "How long to simulate: 7d, 12h, 90m.")
    var horizon = "7d"

    @Option(help: "The simulated start, ISO-8601 (default: now).")
    var from: String?

    @Option(help: "Seed for the simulated server, feed and faults.")
    var seed: UInt64 = 1

    @Option(
        help: "The state database to copy (default: $MOLTIPASS_STATE, else $XDG_STATE_HOME/moltipass/state.sqlite).")
    var state: String?

    @Flag(help: "Print the result as JSON on stdout.")
    var json = false

    @Option(help: "Also write a self-contained HTML page with a timeline chart.")
    var html: String?

    @Option(help: "The simulated server's limits: strict, default, loose, or a JSON file.")
    var serverProfile = "default"

    @Option(help: "Probability (0–1) of a verification challenge per post or comment.")
    var challengeRate: Double = 0

    @Option(help: "Probability (0–1) of a transient fault (5xx, dropped connection) per request.")
    var faultRate: Double = 0

    @Flag(help: "Simulate agents in their first 24 hours (stricter limits).")
    var newAgent = false

    @Flag(help: "The simulated server refuses repeated content and suspends for it, as moltbook.com does.")
    var enforceDuplicates = false

    @Option(help: "Feed fixture (JSON) instead of the seeded feed generator.")
    var feed: String?

    @Option(help: "Explain one job (JOB or RECIPE/JOB): occurrence → limiter → outcome.")
    var explain: String?

    func validate() throws {
        if recipes.isEmpty { throw ValidationError("give at least one recipe file") }
        if PlanOptions.duration(horizon) == nil { throw ValidationError("--for takes a duration such as 7d, 12h, 90m") }
        if let from, ISO8601DateFormatter().date(from: from) == nil { throw ValidationError("--from takes ISO-8601") }
        if !(0...1).contains(challengeRate) { throw ValidationError("--challenge-rate is between 0 and 1") }
        if !(0...1).contains(faultRate) { throw ValidationError("--fault-rate is between 0 and 1") }
    }

    func run() async throws {
        try await reportingFailures {
            let environment = ProcessInfo.processInfo.environment
            let loaded = RunSession.loadRecipes(self.recipes)
            if case .failure(let diagnostics) = loaded {
                printError(diagnostics.sorted().description)
                return .invalidRecipe
            }
            guard case .success(let recipes) = loaded else { return .invalidRecipe }
            let start = from.flatMap { ISO8601DateFormatter().date(from: $0) } ?? Date()
            var options = PlanOptions(start: start, horizon: PlanOptions.duration(horizon) ?? 7 * 86_400)
            options.seed = seed
            options.challengeRate = challengeRate
            options.faultRate = faultRate
            options.newAgent = newAgent
            options.enforceDuplicates = enforceDuplicates
            do {
                options.serverProfile = try PlanServerProfile.named(serverProfile)
                if let feed { options.feed = try PlanFeed.load(path: feed) }
            } catch let error as PlanError {
                printError("moltipass: \(error)")
                return .usage
            }
            var simulation = PlanSimulation(
                recipes: recipes, options: options, statePath: StateLocation.path(flag: state, environment: environment)
            )
            simulation.environment = environment
            let result = try await simulation.run()
            if let html {
                try Data(result.html().utf8).write(to: URL(fileURLWithPath: html))
            }
            if let explain {
                guard let text = result.explain(job: explain) else {
                    printError("moltipass: no job \(explain) did anything in the simulated horizon")
                    return .usage
                }
                print(text)
            } else if json {
                FileHandle.standardOutput.write(try result.json())
                FileHandle.standardOutput.write(Data("\n".utf8))
            } else {
                let colour = environment["NO_COLOR"] == nil && isatty(1) == 1
                print(result.text(colour: colour))
            }
            return .ok
        }
    }
}
