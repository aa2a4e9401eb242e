import ArgumentParser
import Foundation
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass pause AGENT [--for DURATION]`: stops an agent's writes (a manual pause).
struct Pause: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stop an agent's writes until resumed, or for a while (--for 2h).",
        discussion: """
            A manual pause: `run` sends nothing for the agent (exit 0; 6 with --detailed-exitcode), `status` \
            shows it, `status --health` stays healthy (the operator chose it). `moltipass resume AGENT` lifts it.
            """)

    @Argument(help: "The agent (its recipes' `agent:`).")
    var agent: String

    @Option(name: .customLong("for"), help: "How long (30m, 2h, 1d); without it, until resumed.")
    var duration: String?

    @Option(help: "Why, shown by status.")
    var reason = "paused by an operator"

    @Flag(help: "Pause an agent the state has not seen yet (before its first run).")
    var new = false

    @Option(help: "The state database (default: $MOLTIPASS_STATE, else $XDG_STATE_HOME/moltipass/state.sqlite).")
    var state: String?

    @Flag(help: "Print the result as JSON on stdout.")
    var json = false

    @Option(help: .hidden)
    var now: String?

    func validate() throws {
        if let duration, AgentControl.duration(duration) == nil {
            throw ValidationError("--for takes a duration such as 30m, 2h or 1d")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let control = try await openState(state)
            let instant = try NowOption.resolve(now)
            let until = duration.flatMap(AgentControl.duration).map { instant.addingTimeInterval($0) }
            if !new, let unknown = try await control.unknownAgent(agent) {
                printError(
                    "moltipass: \(unknown): nothing paused; check the name, or add --new to pause it before its first run"
                )
                return .failure
            }
            try await control.pause(agent, until: until, reason: reason, at: instant)
            let untilText = until.map { ISO8601DateFormatter().string(from: $0) }
            if json {
                printJSON(["agent": agent, "paused_until": untilText ?? "resumed"])
            } else {
                print("\(agent): writes paused " + (untilText.map { "until \($0)" } ?? "until resumed"))
            }
            return .ok
        }
    }
}

/// `moltipass resume AGENT`: lifts the agent's pauses and restarts its challenge-failure count.
struct Resume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lift an agent's pauses (manual, failed challenges, auth breaker, refused key).",
        discussion: """
            Also restarts the count of verification challenges failed in a row (the agent stops after \
            `challenge: on_fail: stop_after`, 2 by default). A suspension is the server's and stays.
            """)

    @Argument(help: "The agent (its recipes' `agent:`).")
    var agent: String

    @Option(help: "The state database (default: $MOLTIPASS_STATE, else $XDG_STATE_HOME/moltipass/state.sqlite).")
    var state: String?

    @Flag(help: "Print the result as JSON on stdout.")
    var json = false

    @Option(help: .hidden)
    var now: String?

    func run() async throws {
        try await reportingFailures {
            let control = try await openState(state)
            let instant = try NowOption.resolve(now)
            if let unknown = try await control.unknownAgent(agent) {
                printError("moltipass: \(unknown): nothing to resume; check the name")
                return .failure
            }
            let resumed = try await control.resume(agent, at: instant)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                encoder.dateEncodingStrategy = .iso8601
                encoder.keyEncodingStrategy = .convertToSnakeCase
                FileHandle.standardOutput.write(try encoder.encode(resumed) + Data("\n".utf8))
            } else {
                let lifted =
                    resumed.lifted.isEmpty ? "no pause to lift" : "lifted " + resumed.lifted.joined(separator: ", ")
                print("\(agent): \(lifted); challenge failures count from now")
                for (kind, why) in resumed.kept.sorted(by: { $0.key < $1.key }) {
                    printError("moltipass: \(agent): \(kind) not lifted: \(why)")
                }
                if resumed.suspended {
                    let until = resumed.suspendedUntil.map { " until \(ISO8601DateFormatter().string(from: $0))" } ?? ""
                    print("\(agent): still suspended by the server\(until); that ends on the server's side")
                }
            }
            return resumed.kept.isEmpty ? .ok : .failure
        }
    }
}

/// Agent control over the state store at `--state` (or the default location), opened for writing.
func openState(_ flag: String?) async throws -> AgentControl {
    guard let target = StateLocation.target(flag: flag, environment: ProcessInfo.processInfo.environment) else {
        throw ValidationError("no state path: give --state or set MOLTIPASS_STATE")
    }
    return try await AgentControl.open(target)
}

/// One line of JSON on stdout.
func printJSON(_ fields: [String: String]) {
    let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}
