import Foundation

/// The handles the SQLite store's bodies get. Each call runs its statements in one access to the
/// connection the store lent for the body (`SQLiteHandle`), inside the body's transaction; the
/// statements themselves are `SQLiteAccess`'s.
protocol SQLiteHandleCalls {
    var handle: SQLiteHandle { get }
}

/// A `read` body's handle: queries only, in the read transaction of the lent connection.
struct SQLiteStateReader: StateReader, SQLiteHandleCalls {
    let handle: SQLiteHandle
}

/// A `transaction` body's handle: queries and updates, in the write transaction.
struct SQLiteStateTransaction: StateTransaction, SQLiteHandleCalls {
    let handle: SQLiteHandle
}

extension SQLiteHandleCalls {
    func limiterState(account: String, key: String) async throws -> Data? {
        try await handle.run { try $0.limiterState(account: account, key: key) }
    }

    func limitHints(account: String) async throws -> [LimitHint] {
        try await handle.run { try $0.limitHints(account: account) }
    }

    func scheduleCursor(recipe: String, job: String) async throws -> Date? {
        try await handle.run { try $0.scheduleCursor(recipe: recipe, job: job) }
    }

    func queuePosition(recipe: String, queue: String) async throws -> QueuePosition? {
        try await handle.run { try $0.queuePosition(recipe: recipe, queue: queue) }
    }

    func journalEntry(key: String) async throws -> JournalEntry? {
        try await handle.run { try $0.journalEntry(key: key) }
    }

    func journalEntries(account: String, states: Set<JournalState>) async throws -> [JournalEntry] {
        try await handle.run { try $0.journalEntries(account: account, states: states) }
    }

    func pendingJournalEntries(account: String) async throws -> [JournalEntry] {
        try await handle.run { try $0.pendingJournalEntries(account: account) }
    }

    func journalTargets(account: String, actions: Set<String>) async throws -> [String: Set<String>] {
        try await handle.run { try $0.journalTargets(account: account, actions: actions) }
    }

    func dedupRecords(account: String, kind: DedupKind, target: String) async throws -> [DedupRecord] {
        try await handle.run { try $0.dedupRecords(account: account, kind: kind, target: target) }
    }

    func dedupTargets(account: String, kind: DedupKind, value: String?) async throws -> Set<String> {
        try await handle.run { try $0.dedupTargets(account: account, kind: kind, value: value) }
    }

    func contentRecords(account: String, since: Date) async throws -> [ContentRecord] {
        try await handle.run { try $0.contentRecords(account: account, since: since) }
    }

    func pauses(account: String) async throws -> [AccountPause] {
        try await handle.run { try $0.pauses(account: account) }
    }

    func challenge(code: String) async throws -> StoredChallenge? {
        try await handle.run { try $0.challenge(code: code) }
    }

    func challenges(account: String, status: ChallengeStatus?, limit: Int) async throws -> [StoredChallenge] {
        try await handle.run { try $0.challenges(account: account, status: status, limit: limit) }
    }

    func lease(account: String) async throws -> Lease? {
        try await handle.run { try $0.lease(account: account) }
    }

    func leases() async throws -> [Lease] {
        try await handle.run { try $0.leases() }
    }

    func holdsLease(account: String, holder: String, now: Date) async throws -> Bool {
        try await handle.run { try $0.holdsLease(account: account, holder: holder, now: now) }
    }

    func heartbeats() async throws -> [Heartbeat] {
        try await handle.run { try $0.heartbeats() }
    }

    func knownAccounts() async throws -> [String] {
        try await handle.run { try $0.knownAccounts() }
    }
}
