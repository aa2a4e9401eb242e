import ArgumentParser
import Foundation
import MoltbookAPI
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan
import Recipes
import Storage

/// JSON on stdout, the form of the engine's reports (`run --once`, `status`, `pending`, `check`,
/// …): keys sorted and snake_case, dates ISO-8601, pretty-printed.
func printEncoded(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    encoder.dateEncodingStrategy = .iso8601
    encoder.keyEncodingStrategy = .convertToSnakeCase
    // The report's texts may carry what a server or a program said: through the one redactor (issue 34).
    let encoded = String(decoding: try encoder.encode(value), as: UTF8.self)
    FileHandle.standardOutput.write(Data((Redactor.redact(encoded) + "\n").utf8))
}

/// The state at `--state` (or the default), read from a private copy: these commands never write it.
func readState(_ flag: String?) async throws -> AgentControl {
    guard let target = StateLocation.target(flag: flag, environment: ProcessInfo.processInfo.environment) else {
        throw ValidationError("no state path: give --state or set MOLTIPASS_STATE")
    }
    return AgentControl(store: try await target.readOnly())
}

/// `moltipass pending [RECIPE…]`: the writes waiting to be sent.
struct Pending: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the writes waiting to be sent (planned, deferred, being settled).",
        discussion: """
            With recipe files: their agents only, each write with the instant it expires (the job's next \
            occurrence, or its expire_after); an expired write is dropped unsent by the next run. Without: every \
            agent in the state. `moltipass cancel KEY` stops one. Never writes the state.
            """)

    @Argument(help: "Recipe files or directories (for the agents and the expiries); none: every agent.")
    var recipes: [String] = []

    @Option(help: "The state database (default: $MOLTIPASS_STATE, else $XDG_STATE_HOME/moltipass/state.sqlite).")
    var state: String?

    @Flag(help: "Print JSON on stdout.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let (loaded, invalid) = RunSession.loadValidRecipes(recipes)
            if !invalid.isEmpty {
                printError(Diagnostics(invalid).description)
                return .invalidRecipe
            }
            let agents = Array(Set(loaded.map(\.agent.value))).sorted()
            let waiting = try await readState(state).pending(agents: agents, recipes: loaded)
            if json {
                try printEncoded(waiting)
                return .ok
            }
            if waiting.isEmpty { print("nothing waiting") }
            for write in waiting {
                var line =
                    "\(write.key.prefix(12)) \(write.agent) \(write.recipe)/\(write.job) \(write.action) [\(write.state)]"
                if let next = write.nextAttempt { line += " next \(iso(next))" }
                if let expires = write.expires { line += " expires \(iso(expires))" }
                if let error = write.lastError { line += " — \(error)" }
                print(line)
            }
            return .ok
        }
    }
}

/// The options `cancel` and `settle` share: the keys, the state, `--json`, the instant.
struct JournalKeyOptions: ParsableArguments {
    @Argument(help: "Keys or key prefixes (6 or more leading characters), from `moltipass pending`.")
    var keys: [String]

    @Option(help: "The state database (default: $MOLTIPASS_STATE, else $XDG_STATE_HOME/moltipass/state.sqlite).")
    var state: String?

    @Flag(help: "Print JSON on stdout.")
    var json = false

    @Option(help: .hidden)
    var now: String?

    func validate() throws {
        if keys.isEmpty { throw ValidationError("give at least one key (see `moltipass pending`)") }
    }

    /// Prints `results` (JSON, or a line each: `done` ones on stdout, the others on stderr)
    /// and says whether every key was acted on.
    func report<Result: Encodable>(
        _ results: [Result], done: (Result) -> Bool, line: (Result) -> String, problem: (Result) -> String
    ) throws -> ExitStatus {
        if json {
            try printEncoded(results)
        } else {
            for result in results {
                if done(result) { print(line(result)) } else { printError(problem(result)) }
            }
        }
        return results.allSatisfy(done) ? .ok : .failure
    }
}

/// `moltipass cancel KEY…`: stops waiting writes.
struct Cancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cancel waiting writes by key (from `moltipass pending`; 6 or more leading characters do).",
        discussion: """
            A cancelled write is never sent; its target counts as acted on, so no later occurrence plans it again; \
            a queued post's item goes back to its queue. A write already sent cannot be cancelled. Exit 0 when \
            every key was cancelled, 1 otherwise (each problem named).
            """)

    @OptionGroup var options: JournalKeyOptions

    func run() async throws {
        try await reportingFailures {
            let instant = try NowOption.resolve(options.now)
            let results = try await openState(options.state).cancel(options.keys, at: instant)
            return try options.report(
                results, done: \.cancelled,
                line: { "cancelled \($0.key ?? $0.given) \($0.agent ?? "") \($0.action ?? "")" },
                problem: { "not cancelled \($0.given): \($0.problem ?? "unknown")" })
        }
    }
}

/// `moltipass settle KEY… --sent | --not-sent`: an operator's decision on a write whose outcome
/// reading back could not establish (issue 33).
struct Settle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Settle writes whose outcome is unknown: --sent (it is on the server) or --not-sent (send it again).",
        discussion: """
            A write whose answer was lost is read back; when what the server lists does not say whether it was \
            applied, it stays uncertain and is never sent again by itself (a second post would be a duplicate, a \
            second vote would take the first back). `moltipass pending` lists it with its key. Look on the \
            server, then: --sent finishes it done (--id records the post or comment id); --not-sent makes it due \
            now, and the next run sends it (after its duplicate guard and server check). Exit 0 when every key \
            was settled, 1 otherwise (each problem named).
            """)

    @OptionGroup var options: JournalKeyOptions

    @Flag(help: "It is on the server: finish it done.")
    var sent = false

    @Flag(name: .customLong("not-sent"), help: "It is not on the server: send it again on the next run.")
    var notSent = false

    @Option(help: "With --sent: the created post's or comment's id.")
    var id: String?

    func validate() throws {
        if sent == notSent { throw ValidationError("say which: --sent or --not-sent") }
        if id != nil, !sent { throw ValidationError("--id goes with --sent") }
    }

    func run() async throws {
        try await reportingFailures {
            let instant = try NowOption.resolve(options.now)
            let results = try await openState(options.state).settle(
                options.keys, sent: sent, remoteID: id, at: instant)
            let how = sent ? "as sent" : "as not sent: due again"
            return try options.report(
                results, done: \.settled,
                line: { "settled \($0.key ?? $0.given) \($0.agent ?? "") \($0.action ?? "") \(how)" },
                problem: { "not settled \($0.given): \($0.problem ?? "unknown")" })
        }
    }
}

/// `moltipass history AGENT [--since 24h]`: what an agent did.
struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List an agent's finished writes (sent, refused, cancelled) since a time.",
        discussion: "Never writes the state. Done writes are kept for --journal-retention (90 days by default).")

    @Argument(help: "The agent (its recipes' `agent:`).")
    var agent: String

    @Option(help: "How far back: a duration (24h, 7d) or an ISO-8601 instant. Default 24h.")
    var since = "24h"

    @Option(help: "The state database (default: $MOLTIPASS_STATE, else $XDG_STATE_HOME/moltipass/state.sqlite).")
    var state: String?

    @Flag(help: "Print JSON on stdout.")
    var json = false

    @Option(help: .hidden)
    var now: String?

    func validate() throws {
        if ISO8601DateFormatter().date(from: since) == nil, AgentControl.duration(since) == nil {
            throw ValidationError("--since takes a duration such as 24h or 7d, or an ISO-8601 instant")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let instant = try NowOption.resolve(now)
            let start =
                ISO8601DateFormatter().date(from: since)
                ?? instant.addingTimeInterval(-(AgentControl.duration(since) ?? 86_400))
            let past = try await readState(state).history(agent, since: start)
            if json {
                try printEncoded(past)
                return .ok
            }
            if past.isEmpty { print("\(agent): nothing since \(iso(start))") }
            for write in past {
                print(
                    "\(iso(write.at)) \(write.outcome.padding(toLength: 6, withPad: " ", startingAt: 0)) "
                        + "\(write.recipe)/\(write.job) \(write.action)"
                        + (write.remoteID.map { " id \($0)" } ?? "") + (write.reason.map { " — \($0)" } ?? ""))
            }
            return .ok
        }
    }
}

/// An instant as `2026-12-01T10:00:00Z`.
func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }
