import ArgumentParser
import Foundation
import Logging
import MoltipassCommands
import MoltipassEngine

/// `moltipass state …`: operations on the state as a whole.
struct StateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Operations on the state as a whole (moving it into PostgreSQL).",
        subcommands: [StateMigrate.self])
}

/// `moltipass state migrate --from FILE --to postgres://…` (issue 23).
struct StateMigrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy a state file into a new, empty PostgreSQL state, for runners on many hosts.",
        discussion: """
            Stop every runner of the file first (refused while one holds a lease or ticked within 10 minutes). \
            Copies the journal, dedup facts, schedule cursors, queue positions, limiter ledger and hints, pauses, \
            challenges and the content ledger in one transaction, then compares every agent's state in both; \
            leases and heartbeats stay behind. The file is never changed. The target schema must be empty. The \
            password comes from the URL's password_file= or $MOLTIPASS_STATE_PASSWORD_FILE, never the URL.
            """)

    @Option(help: ArgumentHelp("The state file to move.", valueName: "file"))
    var from: String

    @Option(
        help: ArgumentHelp(
            "The PostgreSQL state: postgres://USER@HOST:PORT/DATABASE?schema=NAME[&password_file=PATH].",
            valueName: "url"))
    var to: String

    @Flag(help: "Print the result as JSON on stdout.")
    var json = false

    @Option(help: .hidden)
    var now: String?

    func run() async throws {
        try await reportingFailures {
            let move = StateMove(
                from: from, to: to, environment: ProcessInfo.processInfo.environment,
                logger: Logger(label: "moltipass.state"))
            let instant = try NowOption.resolve(now)
            try printReport(try await move.run(now: instant), json: json)
            return .ok
        }
    }
}
