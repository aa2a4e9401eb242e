import Foundation
import Logging
import MoltipassEngine
import PostgresStorage
import Storage

/// `moltipass state migrate --from FILE --to postgres://…` (issue 23): moves a single-host
/// installation's state into PostgreSQL, where many runners can share it.
///
/// The file is read from a private copy (SQLite's online backup; the file stays byte-identical
/// and keeps working: going back is starting the runners on it again). Every copied table
/// (`StateDump.copiedTables`: limiter ledger and hints, schedule cursors, queue positions, the
/// journal, dedup facts, pauses, the content ledger, challenges) goes into the new schema in one
/// transaction; leases and heartbeats stay behind. The move is refused, with nothing written,
/// when a runner still uses the file (a live lease, or a daemon's heartbeat younger than a lease
/// time: its writes after the copy would be lost) or when the target already holds anything (a
/// move never merges two histories). After the copy, what the engine reads of each agent (its
/// pending writes, pauses, hints, dedup facts) is read from both stores and compared.
public struct StateMove: Sendable {
    public let from: String
    public let to: String
    public let passwordFile: String?
    public let logger: Logger

    public init(from: String, to: String, environment: [String: String], logger: Logger) {
        self.from = from
        self.to = to
        passwordFile = environment["MOLTIPASS_STATE_PASSWORD_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        self.logger = logger
    }

    /// What was moved.
    public struct Report: CommandReport, Sendable {
        public let from: String
        public let to: String
        /// Rows per copied table.
        public let rows: [String: Int]
        public let agents: [String]
        /// Leases and heartbeats of the old host, not moved.
        public let leftBehind: [String: Int]

        enum CodingKeys: String, CodingKey {
            case from, to, rows, agents
            case leftBehind = "left_behind"
        }

        public var text: String {
            var lines = ["moved \(from) to \(to): \(agents.count) agent(s)"]
            let width = StateDump.copiedTables.map(\.count).max() ?? 0
            for table in StateDump.copiedTables {
                let name = table.padding(toLength: width, withPad: " ", startingAt: 0)
                lines.append("  \(name)  \(rows[table] ?? 0)")
            }
            let behind = StateDump.runnerTables.compactMap { table in
                (leftBehind[table] ?? 0) > 0 ? "\(leftBehind[table] ?? 0) \(table)" : nil
            }
            if !behind.isEmpty {
                lines.append("not moved: \(behind.joined(separator: ", ")) (runners of the old host)")
            }
            lines.append("the state file is unchanged; start every runner with --state \(to)")
            return lines.joined(separator: "\n")
        }
    }

    /// Moves the state; `now` decides which leases and heartbeats are live.
    public func run(now: Date) async throws -> Report {
        guard !PostgresLocation.isURL(from) else {
            throw StorageError(
                .invalidLocation, "--from names a PostgreSQL state: state migrate moves a state file into PostgreSQL")
        }
        guard PostgresLocation.isURL(to) else {
            throw StorageError(
                .invalidLocation, "--to is not a PostgreSQL URL (postgres://USER@HOST:PORT/DATABASE?schema=NAME)")
        }
        let location = try PostgresLocation(url: to, passwordFile: passwordFile)
        guard try SQLiteStateStore.stateFileExists(from) else {
            throw StorageError(.io, "there is no state file at \(from)")
        }
        let source = try SQLiteStateStore.snapshot(of: from)
        let (leases, heartbeats) = try await source.read { reader in
            (try await reader.leases(), try await reader.heartbeats())
        }
        try Self.refuseRunners(leases: leases, heartbeats: heartbeats, path: from, now: now)
        let dump = try await source.dump()
        let target = try await PostgresStateStore.open(url: to, passwordFile: passwordFile, logger: logger)
        do {
            let rows = try await target.importDump(dump)
            let agents = try await Self.compare(source, target, destination: location.description)
            await target.close()
            return Report(
                from: from, to: location.description, rows: rows, agents: agents,
                leftBehind: ["leases": leases.count, "heartbeats": heartbeats.count])
        } catch {
            await target.close()
            throw error
        }
    }

    /// Refuses a state a runner still uses.
    static func refuseRunners(leases: [Lease], heartbeats: [Heartbeat], path: String, now: Date) throws {
        let ttl = Runner.Configuration.defaultLeaseTTL
        var users = leases.filter { !$0.holder.isEmpty && $0.expiresAt > now }.map {
            "\($0.holder) holds \($0.account) until \(Self.iso($0.expiresAt))"
        }
        let running = heartbeats.filter { $0.isLiveDaemon(at: now, fallback: ttl) }
        users += running.map { "\($0.holder) was running at \(Self.iso($0.lastTick))" }
        guard users.isEmpty else {
            throw StorageError(
                .busy,
                "a runner still uses \(path) (\(users.joined(separator: "; "))): stop every daemon and cron run "
                    + "of this state first (a daemon stopped with SIGTERM releases its leases; one that was killed "
                    + "is forgotten after its lease time, \(Self.minutes(running.map { $0.leaseTime ?? ttl }.max() ?? ttl))), then "
                    + "migrate again")
        }
    }

    /// Reads what the engine reads of every agent from both stores; throws on the first
    /// difference. Returns the agents.
    static func compare(_ source: some StateStore, _ target: some StateStore, destination: String) async throws
        -> [String]
    {
        let agents = try await source.read { try await $0.knownAccounts() }
        for agent in agents {
            let (left, right) = try await (Self.view(of: agent, in: source), Self.view(of: agent, in: target))
            guard left == right else {
                throw StorageError(
                    .database,
                    "the state of \(agent) in \(destination) differs from the file's after the copy; drop the "
                        + "schema and migrate again")
            }
        }
        return agents
    }

    /// One agent's state as the engine reads it.
    struct AgentView: Equatable {
        var pending: [JournalEntry]
        var all: [JournalEntry]
        var pauses: [AccountPause]
        var hints: [LimitHint]
        var targets: [String: Set<String>]
        var content: [ContentRecord]
        var challenges: [StoredChallenge]
    }

    static func view(of agent: String, in store: some StateStore) async throws -> AgentView {
        try await store.read { reader in
            let all = try await reader.journalEntries(account: agent, states: Set(JournalState.allCases))
            return AgentView(
                pending: try await reader.pendingJournalEntries(account: agent), all: all,
                pauses: try await reader.pauses(account: agent), hints: try await reader.limitHints(account: agent),
                targets: try await reader.journalTargets(account: agent, actions: Set(all.map(\.action))),
                content: try await reader.contentRecords(account: agent, since: .distantPast),
                challenges: try await reader.challenges(account: agent, status: nil, limit: Int.max))
        }
    }

    private static func iso(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    /// A lease time in words: "10 minutes", "90 seconds".
    private static func minutes(_ seconds: TimeInterval) -> String {
        let whole = Int(seconds.rounded(.up))
        guard whole % 60 == 0 else { return "\(whole) seconds" }
        return whole == 60 ? "1 minute" : "\(whole / 60) minutes"
    }
}
