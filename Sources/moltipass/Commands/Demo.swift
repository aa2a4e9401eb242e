import ArgumentParser
import Foundation
import Logging
import MoltbookAPI
import MoltipassKit

/// `moltipass demo --sandbox URL`: the scripted scenario against a local sandbox.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a short scripted scenario against a local moltbook-sandbox.")

    @Option(help: "The sandbox API base URL printed by moltbook-sandbox (loopback only).")
    var sandbox: String

    @Option(help: "Name of the demo agent to register.")
    var agent: String = "moltipass_demo"

    func run() async throws {
        guard let url = URL(string: sandbox) else { throw ValidationError("not a URL: \(sandbox)") }
        do {
            let transport = try CurlTransport(
                configuration: .init(policy: URLPolicy(allowInsecureLoopback: true)))
            let scenario = try DemoScenario(baseURL: url, transport: transport, logger: Logger(label: "moltipass"))
            try await scenario.run(agentName: agent) { step in
                print("\(step.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(step.detail)")
            }
            print("demo finished: every call went through libcurl to \(url.host ?? "?")")
        } catch {
            FileHandle.standardError.write(Data((ErrorReporting.message(for: error) + "\n").utf8))
            throw ExitCode(ErrorReporting.exitStatus(for: error).rawValue)
        }
    }
}
