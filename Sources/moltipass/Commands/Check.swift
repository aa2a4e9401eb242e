import ArgumentParser
import Foundation
import Logging
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass check RECIPE…`: the preflight after every change.
struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Preflight: validate recipes, unlock the keychain, and ask the server about every agent.",
        discussion: """
            Run after every change, before cron or the daemon meet it. Checks that the recipes are valid and \
            claim no job twice, that every `env:` variable is set and every solver command exists, that every \
            generator (generate:) can run here without running it: a command's program exists and is \
            executable, its env: variables are set (else a warning), an openai server's base_url is https or \
            loopback http, its key_file is private (0600 or 0400) and holds a key, its key: is a model key of \
            the keychain; that the state can be written, that the keychain opens and has an entry for every \
            agent, and, with one read per agent, that the server accepts its key, the agent is claimed and not \
            suspended. Lists every problem. Writes nothing, runs no generator, asks no model server. Exit 0 \
            when all is well (warnings aside); else 65 a recipe (invalid, or missing what it needs here), \
            12 the keychain, 77 a refused, unclaimed or suspended agent, 75 the server could not be asked, \
            1 otherwise (the state).
            """)

    @Argument(help: "Recipe files or directories.")
    var recipes: [String]

    @Option(help: "The state database (default: $MOLTIPASS_STATE, else $XDG_STATE_HOME/moltipass/state.sqlite).")
    var state: String?

    @OptionGroup var keys: KeysOptions

    @Flag(help: "Print the result as JSON on stdout.")
    var json = false

    func validate() throws {
        if recipes.isEmpty { throw ValidationError("give at least one recipe file or directory") }
    }

    func run() async throws {
        try await reportingFailures {
            let environment = ProcessInfo.processInfo.environment
            let logger = Logger(label: "moltipass") { _ in SwiftLogNoOpLogHandler() }
            let preflight = Preflight(
                keys: try keys.session(), statePath: StateLocation.path(flag: state, environment: environment),
                environment: environment, logger: logger)
            let report = await preflight.run(recipes)
            if json {
                try printEncoded(report)
            } else {
                for file in report.recipes { print("ok recipe \(file)") }
                for agent in report.agents where !report.problems.contains(where: { $0.agent == agent.agent }) {
                    print(
                        "ok agent \(agent.agent): key works"
                            + (agent.claimed == true ? ", claimed" : "")
                            + (agent.serverName.map { $0 == agent.agent ? "" : " (on the server: \($0))" } ?? "")
                            + " at \(agent.baseURL)")
                }
                for problem in report.problems { printError("problem: \(problem.text)") }
                for warning in report.warnings { printError("warning: \(warning.text)") }
            }
            return report.exitStatus
        }
    }
}
