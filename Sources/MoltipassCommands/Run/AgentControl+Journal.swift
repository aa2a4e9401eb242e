import Foundation
import MoltbookAPI
import MoltipassEngine
import Recipes
import Storage

/// `moltipass pending`, `cancel` and `history` (issue 19): what is waiting to be sent, an
/// operator's way to stop one write, and what an agent did, without reading the journal with
/// `sqlite3`.
extension AgentControl {
    /// One write waiting to be sent, or being settled.
    public struct Waiting: Sendable, Codable, Equatable {
        public var key: String
        public var agent: String
        /// The recipe as the state knows it (its `name:`, else its agent) and the job.
        public var recipe: String
        public var job: String
        /// What, in words (`post to m/general: "…"`).
        public var action: String
        /// `intent` (planned), `failed` (refused, retried at `nextAttempt`), `sent` or
        /// `uncertain` (its outcome is being settled by reading back); `read_deferred` for a step
        /// whose selection or inbox read a limit deferred (issue 33: kept like a write, read again
        /// at `nextAttempt`, dropped at `expires`; its key is not a journal key, nothing to cancel).
        public var state: String
        public var occurrence: Date
        public var nextAttempt: Date?
        /// When it is dropped unsent, when the recipe is known (`PendingWrites.expiry`).
        public var expires: Date?
        /// Whether `cancel` can stop it (not once it has left).
        public var cancellable: Bool
        public var lastError: String?
    }

    /// The waiting writes of `agents` (every agent the state knows when empty), oldest first.
    /// `recipes` give each write its expiry.
    public func pending(agents: [String], recipes: [Recipe]) async throws -> [Waiting] {
        try await store.read { reader in
            let accounts = agents.isEmpty ? try await reader.knownAccounts() : agents
            var waiting: [Waiting] = []
            for agent in accounts {
                waiting += try await reader.pendingJournalEntries(account: agent).map { entry in
                    let recipe = recipes.first { $0.agent.value == agent && $0.stateNames.contains(entry.recipe) }
                    let job = recipe?.jobs.first { $0.id.value == entry.job }
                    return Waiting(
                        key: entry.key, agent: agent, recipe: entry.recipe, job: entry.job,
                        action: Self.summary(entry), state: entry.state.rawValue, occurrence: entry.occurrence,
                        nextAttempt: entry.nextAttemptAt,
                        expires: job.map {
                            PendingWrites.expiry(of: entry.occurrence, job: $0, seed: recipe?.seed ?? "")
                        },
                        cancellable: PendingWrites.isDroppable(entry), lastError: entry.lastError)
                }
                let deferred =
                    try await reader.limiterState(account: agent, key: DeferredSteps.stateKey)
                    .flatMap(DeferredSteps.init(stored:))?.items ?? []
                waiting += deferred.map { step in
                    Waiting(
                        key: step.key, agent: agent, recipe: step.recipe, job: step.job,
                        action: step.action, state: "read_deferred",
                        occurrence: step.nominal, nextAttempt: step.retryAt, expires: step.expiresAt,
                        cancellable: false, lastError: step.reason)
                }
            }
            return waiting
        }
    }

    /// What `cancel` did with one key.
    public struct Cancelled: Sendable, Codable, Equatable {
        /// The key as given.
        public var given: String
        /// The entry's full key, when one matched.
        public var key: String?
        public var agent: String?
        public var action: String?
        public var cancelled: Bool
        /// Why not, when not.
        public var problem: String?
    }

    /// Cancels the waiting writes under `keys` (a full key, or a prefix of at least 6
    /// characters that names one pending entry): each is finished unsent, its target stays acted
    /// on (no later occurrence plans it again), and a queue post's item goes back to the queue.
    /// A write that has left (sent, uncertain) cannot be cancelled: its outcome is being settled.
    public func cancel(_ keys: [String], at now: Date) async throws -> [Cancelled] {
        try await store.transaction { transaction in
            let pending = try await Self.allPending(in: transaction)
            var results: [Cancelled] = []
            for given in keys {
                let entry: JournalEntry
                switch Self.match(given, in: pending) {
                case .failure(let problem):
                    results.append(Cancelled(given: given, cancelled: false, problem: problem.text))
                    continue
                case .success(let found):
                    entry = found
                }
                var result = Cancelled(
                    given: given, key: entry.key, agent: entry.account, action: Self.summary(entry), cancelled: false)
                guard PendingWrites.isDroppable(entry) else {
                    result.problem =
                        "it was sent (\(entry.state.rawValue)); its outcome is being settled by reading back"
                    results.append(result)
                    continue
                }
                let dropped = try await PendingWrites.drop(
                    [entry.key], account: entry.account,
                    how: .cancel(reason: "cancelled by an operator at \(MoltbookDateText.iso(now))"), at: now,
                    in: transaction)
                result.cancelled = !dropped.isEmpty
                results.append(result)
            }
            return results
        }
    }

    struct KeyProblem: Error {
        var text: String
    }

    /// The one pending entry `given` names: its full key, or a prefix of at least 6 characters.
    static func match(_ given: String, in pending: [JournalEntry]) -> Result<JournalEntry, KeyProblem> {
        let matches = pending.filter { $0.key == given || (given.count >= 6 && $0.key.hasPrefix(given)) }
        guard matches.count == 1, let entry = matches.first else {
            return .failure(
                KeyProblem(
                    text: matches.isEmpty
                        ? "no waiting write has this key (see `moltipass pending`)"
                        : "\(matches.count) waiting writes start with it; give more of the key"))
        }
        return .success(entry)
    }

    /// All pending entries of every agent the state knows.
    static func allPending(in transaction: any StateTransaction) async throws -> [JournalEntry] {
        var pending: [JournalEntry] = []
        for account in try await transaction.knownAccounts() {
            pending += try await transaction.pendingJournalEntries(account: account)
        }
        return pending
    }

    /// What `settle` did with one key.
    public struct Settled: Sendable, Codable, Equatable {
        public var given: String
        public var key: String?
        public var agent: String?
        public var action: String?
        /// `done` (it was sent: finished applied) or `failed` (not sent: due again now).
        public var state: String?
        public var settled: Bool
        public var problem: String?
    }

    /// An operator's decision on writes whose outcome is unknown (issue 33: unknown is never
    /// re-sent automatically). `sent`: the operator saw it on the server; it is finished done
    /// (with `remoteID` when given), and the limiter is not charged again. Not `sent`: the
    /// operator is sure it is not there; it becomes due now and the next run sends it (its
    /// duplicate guard and server check still apply). Only a write that left (sent, uncertain)
    /// can be settled; a waiting one is cancelled instead.
    public func settle(_ keys: [String], sent: Bool, remoteID: String?, at now: Date) async throws -> [Settled] {
        try await store.transaction { transaction in
            let pending = try await Self.allPending(in: transaction)
            var results: [Settled] = []
            for given in keys {
                let entry: JournalEntry
                switch Self.match(given, in: pending) {
                case .failure(let problem):
                    results.append(Settled(given: given, settled: false, problem: problem.text))
                    continue
                case .success(let found):
                    entry = found
                }
                var result = Settled(
                    given: given, key: entry.key, agent: entry.account, action: Self.summary(entry), settled: false)
                guard entry.state == .sent || entry.state == .uncertain else {
                    result.problem =
                        "it has not left (\(entry.state.rawValue)): nothing to settle; `moltipass cancel` stops it"
                    results.append(result)
                    continue
                }
                let stamp = MoltbookDateText.iso(now)
                if sent {
                    _ = try await transaction.markDone(key: entry.key, remoteID: remoteID, at: now)
                    result.state = JournalState.done.rawValue
                } else {
                    _ = try await transaction.markFailed(
                        key: entry.key, reason: "settled as not sent by an operator at \(stamp); due again",
                        retryAt: now, at: now)
                    result.state = JournalState.failed.rawValue
                }
                result.settled = true
                results.append(result)
            }
            return results
        }
    }

    /// One write of an agent's history.
    public struct Past: Sendable, Codable, Equatable {
        public var key: String
        /// When it was sent (or finished).
        public var at: Date
        public var recipe: String
        public var job: String
        public var action: String
        /// `done` or `failed`.
        public var outcome: String
        /// The post or comment id, when the server gave one.
        public var remoteID: String?
        public var reason: String?
    }

    /// `agent`'s finished writes since `since`, oldest first.
    public func history(_ agent: String, since: Date) async throws -> [Past] {
        try await store.read { reader in
            try await reader.journalEntries(account: agent, states: [.done, .failed])
                .filter { $0.isFinished && ($0.sentAt ?? $0.updatedAt) >= since }
                .map { entry in
                    Past(
                        key: entry.key, at: entry.sentAt ?? entry.updatedAt, recipe: entry.recipe, job: entry.job,
                        action: Self.summary(entry), outcome: entry.state.rawValue, remoteID: entry.remoteID,
                        reason: entry.lastError)
                }
                .sorted { ($0.at, $0.key) < ($1.at, $1.key) }
        }
    }

    /// A journal entry in words.
    static func summary(_ entry: JournalEntry) -> String {
        entry.payload.flatMap(PlannedWrite.init(payload:))?.summary ?? entry.action
    }
}
