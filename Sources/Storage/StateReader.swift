import Foundation

/// Queries on the state, valid only inside the `read` or `transaction` closure that handed it out.
///
/// Every method is `async`: a store may run it on a connection it lent for the closure (SQLite's
/// serial queue, a network database's socket). Calls within one closure see one consistent state.
public protocol StateReader {
    // MARK: Limiter ledger

    /// The limiter's opaque state for `key` (a rule, a class, or the whole limiter) of `account`.
    func limiterState(account: String, key: String) async throws -> Data?
    /// The server hints of `account`, one per limit class, ordered by class.
    func limitHints(account: String) async throws -> [LimitHint]

    // MARK: Schedules and queues

    /// The last fired occurrence of a recipe's job, or nil if it never fired.
    func scheduleCursor(recipe: String, job: String) async throws -> Date?
    /// How far a recipe has got through a content-queue file, or nil if it never took an item.
    func queuePosition(recipe: String, queue: String) async throws -> QueuePosition?

    // MARK: Journal

    /// The entry under an idempotency key.
    func journalEntry(key: String) async throws -> JournalEntry?
    /// The entries of `account` in any of `states`, oldest first; entries recorded at the same
    /// instant (planned in one pass) in occurrence, then step order.
    func journalEntries(account: String, states: Set<JournalState>) async throws -> [JournalEntry]
    /// The unfinished entries of `account`, oldest first (ties as above, so a queue's items
    /// planned in one pass drain in queue order): `intent`, `sent`, `uncertain`, and `failed`
    /// with a `nextAttemptAt`. A `done` entry or a `failed` one without a retry time is finished.
    func pendingJournalEntries(account: String) async throws -> [JournalEntry]
    /// The distinct targets of the entries of `account` (in any state), by action, for the
    /// actions in `actions` (those with no target left out). The engine's "already journaled"
    /// check, without reading every entry.
    func journalTargets(account: String, actions: Set<String>) async throws -> [String: Set<String>]

    // MARK: Dedup facts

    /// The facts of `kind` about `target` for `account` (for a comment, one per content hash).
    func dedupRecords(account: String, kind: DedupKind, target: String) async throws -> [DedupRecord]
    /// Every target with a fact of `kind` for `account`, only those whose value is `value` when
    /// one is given (for filtering candidate targets in bulk).
    func dedupTargets(account: String, kind: DedupKind, value: String?) async throws -> Set<String>

    // MARK: Content ledger

    /// The content `account` sent at or after `since`, oldest first.
    func contentRecords(account: String, since: Date) async throws -> [ContentRecord]

    // MARK: Pauses and challenges

    /// Every pause recorded for `account` (expired ones included until cleared), by kind.
    func pauses(account: String) async throws -> [AccountPause]
    /// The challenge with `code`.
    func challenge(code: String) async throws -> StoredChallenge?
    /// The challenges of `account`, newest first, optionally only those in `status`, at most `limit`.
    func challenges(account: String, status: ChallengeStatus?, limit: Int) async throws -> [StoredChallenge]

    // MARK: Leases and health

    /// The lease of `account` (live or expired), if any holder has it (a released one is none).
    func lease(account: String) async throws -> Lease?
    /// Every lease some holder has (live or expired), by account: for `status` and for spreading
    /// agents over runners.
    func leases() async throws -> [Lease]
    /// Whether `holder` holds a live lease on `account` at `now` (a fencing check for writes).
    func holdsLease(account: String, holder: String, now: Date) async throws -> Bool
    /// Every engine heartbeat, by holder.
    func heartbeats() async throws -> [Heartbeat]
    /// Every account any table mentions, sorted (for `status`).
    func knownAccounts() async throws -> [String]
}

extension StateReader {
    /// The entries of `account` whose outcome is unknown, oldest first.
    public func uncertainJournalEntries(account: String) async throws -> [JournalEntry] {
        try await journalEntries(account: account, states: [.uncertain])
    }

    /// The pauses of `account` still in force at `now`.
    public func activePauses(account: String, at now: Date) async throws -> [AccountPause] {
        try await pauses(account: account).filter { $0.isActive(at: now) }
    }

    /// The direction `account` last voted on a post or comment, if the store knows one.
    public func vote(account: String, kind: DedupKind, target: String) async throws -> String? {
        try await dedupRecords(account: account, kind: kind, target: target).first?.value
    }

    /// Whether a fact (`kind`, `target`, `value`) is recorded for `account`.
    public func hasDedupRecord(account: String, kind: DedupKind, target: String, value: String = "") async throws
        -> Bool
    {
        try await dedupRecords(account: account, kind: kind, target: target).contains { $0.value == value }
    }
}
