import ArgumentParser
import Foundation
import Logging
import MoltbookAPI
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass demo --sandbox URL`: the scripted scenario against a local sandbox.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a short scripted scenario against a local moltbook-sandbox.")

    @Option(help: "The sandbox API base URL printed by moltbook-sandbox (loopback only).")
    var sandbox: String

    @Option(help: "Name of the demo agent to register.")
    var agent: String = "moltipass_demo"

    @Flag(
        help: """
            Print one JSON object on stdout once the scenario has run, also when a step failed: sandbox, \
            agent, finished, steps (name, detail). Never a key.
            """)
    var json = false

    func run() async throws {
        guard let url = URL(string: sandbox) else { throw ValidationError("not a URL: \(sandbox)") }
        var steps: [DemoScenario.Step] = []
        var started = false
        do {
            let transport = try CurlTransport(
                configuration: .init(policy: URLPolicy(allowInsecureLoopback: true)))
            let scenario = try DemoScenario(baseURL: url, transport: transport, logger: Logger(label: "moltipass"))
            started = true
            try await scenario.run(agentName: agent) { step in
                steps.append(step)
                if !json { print("\(step.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(step.detail)") }
            }
        } catch {
            if started { try report(steps, finished: false, to: url) }
            FileHandle.standardError.write(Data((ErrorReporting.message(for: error) + "\n").utf8))
            throw ExitCode(ErrorReporting.exitStatus(for: error).rawValue)
        }
        try report(steps, finished: true, to: url)
    }

    /// The closing line, or with `--json` the whole report.
    private func report(_ steps: [DemoScenario.Step], finished: Bool, to url: URL) throws {
        if json {
            let report = DemoScenario.Report(sandbox: sandbox, agent: agent, finished: finished, steps: steps)
            print(try ReportJSON.string(report))
        } else if finished {
            print("demo finished: every call went through libcurl to \(url.host ?? "?")")
        }
    }
}
