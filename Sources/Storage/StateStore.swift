import Foundation

/// The engine's persistent state: limiter ledger, schedule cursors, content-queue positions,
/// the write journal, dedup facts, pauses and challenges, leases and heartbeats.
///
/// Work happens in closures over a short-lived handle: `read` for a consistent snapshot,
/// `transaction` for atomic updates (all or nothing). The closures are `async`, and so is every
/// call on the handle: a store may wait for its database (another process's write lock, a
/// network round trip) by suspending, never by blocking a thread of Swift's cooperative pool.
/// A closure holds the store's connection while it runs: it must not do I/O other than through
/// the handle, and must not call the store again (it would wait for itself). Transactions of one
/// store run one at a time, in arrival order; a `read` sees one snapshot from its first query to
/// its end, whatever commits meanwhile. How each store keeps that: docs/state.md.
///
/// Every time is a parameter; no implementation reads the clock. Only plain value types cross
/// the protocol, so a PostgreSQL implementation can follow (see docs/state.md).
public protocol StateStore: Sendable {
    /// Runs `body` against a consistent read-only view (one snapshot, even across suspensions).
    func read<T: Sendable>(_ body: @escaping @Sendable (any StateReader) async throws -> T) async throws -> T
    /// Runs `body` in one transaction: committed durably when it returns, rolled back when it
    /// throws. A store that waits for its database may also refuse a cancelled task's calls or
    /// commit (SQLite does): then the transaction is rolled back and `CancellationError` thrown.
    func transaction<T: Sendable>(
        _ body: @escaping @Sendable (any StateTransaction) async throws -> T
    ) async throws -> T
}

extension StateStore {
    /// `recordIntent` in a transaction of its own (durable when this returns).
    public func recordIntent(_ intent: JournalIntent, at now: Date) async throws -> RecordedIntent {
        try await transaction { try await $0.recordIntent(intent, at: now) }
    }

    /// `markSent` in a transaction of its own (durable when this returns).
    public func markSent(key: String, at now: Date) async throws -> JournalEntry {
        try await transaction { try await $0.markSent(key: key, at: now) }
    }

    /// `markDone` in a transaction of its own.
    public func markDone(key: String, remoteID: String?, at now: Date) async throws -> JournalEntry {
        try await transaction { try await $0.markDone(key: key, remoteID: remoteID, at: now) }
    }

    /// `markFailed` in a transaction of its own.
    public func markFailed(key: String, reason: String, retryAt: Date?, at now: Date) async throws -> JournalEntry {
        try await transaction { try await $0.markFailed(key: key, reason: reason, retryAt: retryAt, at: now) }
    }

    /// `markUncertain` in a transaction of its own.
    public func markUncertain(key: String, reason: String, retryAt: Date? = nil, at now: Date) async throws
        -> JournalEntry
    {
        try await transaction { try await $0.markUncertain(key: key, reason: reason, retryAt: retryAt, at: now) }
    }

    /// The journal entry under `key`.
    public func journalEntry(key: String) async throws -> JournalEntry? {
        try await read { try await $0.journalEntry(key: key) }
    }

    /// `acquireLease` in a transaction of its own.
    public func acquireLease(account: String, holder: String, now: Date, ttl: TimeInterval) async throws
        -> LeaseResult
    {
        try await transaction { try await $0.acquireLease(account: account, holder: holder, now: now, ttl: ttl) }
    }

    /// `renewLease` in a transaction of its own.
    public func renewLease(account: String, holder: String, token: Int64, now: Date, ttl: TimeInterval) async throws
        -> Lease?
    {
        try await transaction {
            try await $0.renewLease(account: account, holder: holder, token: token, now: now, ttl: ttl)
        }
    }

    /// `releaseLease` in a transaction of its own.
    @discardableResult
    public func releaseLease(account: String, holder: String) async throws -> Bool {
        try await transaction { try await $0.releaseLease(account: account, holder: holder) }
    }

    /// `recordHeartbeat` in a transaction of its own.
    public func recordHeartbeat(_ heartbeat: Heartbeat) async throws {
        try await transaction { try await $0.recordHeartbeat(heartbeat) }
    }
}
