import Foundation
import MoltbookAPI
import MoltipassEngine
import Recipes
import Storage

/// `moltipass pause` and `moltipass resume`: an operator stops or restarts an agent's writes.
public struct AgentControl: Sendable {
    public let store: any StateStore

    public init(store: any StateStore) { self.store = store }

    /// Over the state file at `path` (created if missing, as `run` does), or a PostgreSQL state.
    public static func open(_ target: StateTarget) async throws -> AgentControl {
        AgentControl(store: try await target.open())
    }

    /// A `--for` duration (`30m`, `2h`, `1d12h`) in seconds, or nil when it is not one.
    public static func duration(_ text: String) -> TimeInterval? {
        (try? DurationText.seconds(text)).flatMap { $0 > 0 ? TimeInterval($0) : nil }
    }

    /// What `resume` did.
    public struct Resumed: Sendable, Codable, Equatable {
        public var agent: String
        /// The pauses lifted, by kind.
        public var lifted: [String]
        /// A suspension is the server's: it cannot be lifted here; when it ends, if known.
        public var suspendedUntil: Date?
        public var suspended: Bool
        /// The pause kept although asked to lift it, and why (the failed-challenge stop, while the server's count of
        /// failures in a row is at `ChallengePolicy.safeStreak`).
        public var kept: [String: String] = [:]
    }

    /// Nil when the state knows `agent` (any row of it); else the refusal, in words, naming the
    /// agents it knows (issue 34, observation 8: a typo in an incident paused nothing and said it
    /// did, exit 0).
    public func unknownAgent(_ agent: String) async throws -> String? {
        let known = try await store.read { try await $0.knownAccounts() }
        guard !known.contains(agent) else { return nil }
        let list =
            known.isEmpty ? "none yet" : known.prefix(10).joined(separator: ", ") + (known.count > 10 ? ", …" : "")
        return "the state knows no agent '\(agent)' (it knows: \(list))"
    }

    /// Stops `agent`'s writes until `until` (nil: until resumed), as a `manual` pause: `status`
    /// shows it, `status --health` does not fail on it, `run --once` exits 0 for it (6 with
    /// `--detailed-exitcode`): the operator asked for it.
    public func pause(_ agent: String, until: Date?, reason: String, at now: Date) async throws {
        let pause = AccountPause(account: agent, kind: .manual, until: until, reason: reason, createdAt: now)
        try await store.transaction { try await $0.setPause(pause) }
    }

    /// Lifts every pause of `agent` this runner set (manual, failed challenges, the auth
    /// breaker, a refused key) and restarts the count of challenge failures in a row. A
    /// suspension stays: it is the server's.
    public func resume(_ agent: String, at now: Date) async throws -> Resumed {
        try await store.transaction { transaction in
            let pauses = try await transaction.pauses(account: agent)
            var lifted: [String] = []
            var kept: [String: String] = [:]
            let onServer = try await ChallengeStreak.onServer(account: agent, in: transaction)
            for pause in pauses where pause.kind != .suspended {
                // Never the cause of a suspension (issue 34): an operator's resume does not reset the server's count.
                if pause.kind == .challengeFailed, onServer >= ChallengePolicy.safeStreak {
                    kept[pause.kind.rawValue] = ChallengeStreak.stopReason(onServer)
                    continue
                }
                try await transaction.clearPause(account: agent, kind: pause.kind)
                lifted.append(pause.kind.rawValue)
            }
            try await transaction.setLimiterState(
                ResumeMarker.stored(now), account: agent, key: ResumeMarker.stateKey, at: now)
            let suspension = pauses.first { $0.kind == .suspended && $0.isActive(at: now) }
            return Resumed(
                agent: agent, lifted: lifted.sorted(), suspendedUntil: suspension?.until,
                suspended: suspension != nil, kept: kept)
        }
    }
}
