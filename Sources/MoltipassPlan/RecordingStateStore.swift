import Foundation
import MoltipassEngine
import Storage
import Synchronization

/// The plan's state store: the in-memory copy of the real state, with every journaled intent
/// remembered (key, occurrence, rendered write) so the timeline can show what each report item
/// was about. Everything else passes straight through.
package final class RecordingStateStore: StateStore, Sendable {
    /// One journaled write.
    package struct Intent: Sendable {
        var intent: JournalIntent
        package var write: PlannedWrite?
    }

    let inner: any StateStore
    /// The intents journaled lately, decoded (the collector asks for each report item's). At
    /// most `cap`: past it the cache starts over and older ones are read back from the store
    /// (`knownIntent`); keeping every one held a month's writes twice (bench/notes.md).
    let intents = Mutex<[String: Intent]>([:])
    static let cap = 20_000
    /// The title and author of each post a journaled write created, by the server's id.
    let createdPosts = Mutex<[String: PlanResult.PostRef]>([:])

    package init(inner: any StateStore) { self.inner = inner }

    package func read<T: Sendable>(_ body: @escaping @Sendable (any StateReader) async throws -> T) async throws -> T {
        try await inner.read(body)
    }

    package func transaction<T: Sendable>(
        _ body: @escaping @Sendable (any StateTransaction) async throws -> T
    ) async throws -> T {
        try await inner.transaction { transaction in
            try await body(RecordingTransaction(inner: transaction, store: self))
        }
    }

    func record(_ intent: JournalIntent) {
        let write = intent.payload.flatMap(PlannedWrite.init(payload:))
        // The payload is kept decoded only: a month of 100 recipes journals ~240 000 writes.
        var kept = intent
        kept.payload = nil
        intents.withLock { cache in
            if cache.count >= Self.cap { cache.removeAll(keepingCapacity: true) }
            cache[intent.key] = Intent(intent: kept, write: write)
        }
    }

    /// The journaled write with this idempotency key (a report item's `key`).
    func intent(key: String) -> Intent? {
        intents.withLock { $0[key] }
    }

    /// The same, also for a write journaled before the plan began (the copied state's pending
    /// entries), read once from the copy.
    package func knownIntent(key: String) async -> Intent? {
        if let known = intent(key: key) { return known }
        guard let entry = try? await inner.read({ try await $0.journalEntry(key: key) }) ?? nil else { return nil }
        var intent = entry.intent
        intent.payload = nil  // kept decoded only, as in record(_:)
        let found = Intent(intent: intent, write: entry.payload.flatMap(PlannedWrite.init(payload:)))
        intents.withLock { cache in
            if cache.count >= Self.cap { cache.removeAll(keepingCapacity: true) }
            cache[key] = found
        }
        return found
    }
}

/// Forwards every call to the real transaction handle; records intents on the way.
private struct RecordingTransaction: StateTransaction {
    let inner: any StateTransaction
    let store: RecordingStateStore

    func recordIntent(_ intent: JournalIntent, at now: Date) async throws -> RecordedIntent {
        let recorded = try await inner.recordIntent(intent, at: now)
        store.record(intent)
        return recorded
    }

    // MARK: Forwarded

    func limiterState(account: String, key: String) async throws -> Data? {
        try await inner.limiterState(account: account, key: key)
    }
    func limitHints(account: String) async throws -> [LimitHint] { try await inner.limitHints(account: account) }
    func scheduleCursor(recipe: String, job: String) async throws -> Date? {
        try await inner.scheduleCursor(recipe: recipe, job: job)
    }
    func queuePosition(recipe: String, queue: String) async throws -> QueuePosition? {
        try await inner.queuePosition(recipe: recipe, queue: queue)
    }
    func journalEntry(key: String) async throws -> JournalEntry? { try await inner.journalEntry(key: key) }
    func journalEntries(account: String, states: Set<JournalState>) async throws -> [JournalEntry] {
        try await inner.journalEntries(account: account, states: states)
    }
    func pendingJournalEntries(account: String) async throws -> [JournalEntry] {
        try await inner.pendingJournalEntries(account: account)
    }
    func journalTargets(account: String, actions: Set<String>) async throws -> [String: Set<String>] {
        try await inner.journalTargets(account: account, actions: actions)
    }
    func dedupRecords(account: String, kind: DedupKind, target: String) async throws -> [DedupRecord] {
        try await inner.dedupRecords(account: account, kind: kind, target: target)
    }
    func dedupTargets(account: String, kind: DedupKind, value: String?) async throws -> Set<String> {
        try await inner.dedupTargets(account: account, kind: kind, value: value)
    }
    func contentRecords(account: String, since: Date) async throws -> [ContentRecord] {
        try await inner.contentRecords(account: account, since: since)
    }
    func pauses(account: String) async throws -> [AccountPause] { try await inner.pauses(account: account) }
    func challenge(code: String) async throws -> StoredChallenge? { try await inner.challenge(code: code) }
    func challenges(account: String, status: ChallengeStatus?, limit: Int) async throws -> [StoredChallenge] {
        try await inner.challenges(account: account, status: status, limit: limit)
    }
    func lease(account: String) async throws -> Lease? { try await inner.lease(account: account) }
    func leases() async throws -> [Lease] { try await inner.leases() }
    func holdsLease(account: String, holder: String, now: Date) async throws -> Bool {
        try await inner.holdsLease(account: account, holder: holder, now: now)
    }
    func heartbeats() async throws -> [Heartbeat] { try await inner.heartbeats() }
    func knownAccounts() async throws -> [String] { try await inner.knownAccounts() }
    func setLimiterState(_ state: Data, account: String, key: String, at now: Date) async throws {
        try await inner.setLimiterState(state, account: account, key: key, at: now)
    }
    func removeLimiterState(account: String, key: String) async throws {
        try await inner.removeLimiterState(account: account, key: key)
    }
    func setLimitHint(_ hint: LimitHint) async throws { try await inner.setLimitHint(hint) }
    func removeLimitHint(account: String, limitClass: String) async throws {
        try await inner.removeLimitHint(account: account, limitClass: limitClass)
    }
    func setScheduleCursor(recipe: String, job: String, lastFired: Date, at now: Date) async throws {
        try await inner.setScheduleCursor(recipe: recipe, job: job, lastFired: lastFired, at: now)
    }
    func setQueuePosition(_ position: QueuePosition, recipe: String, queue: String) async throws {
        try await inner.setQueuePosition(position, recipe: recipe, queue: queue)
    }
    func markSent(key: String, at now: Date) async throws -> JournalEntry {
        try await inner.markSent(key: key, at: now)
    }
    func markDone(key: String, remoteID: String?, at now: Date) async throws -> JournalEntry {
        let entry = try await inner.markDone(key: key, remoteID: remoteID, at: now)
        if let remoteID, entry.action == PlannedWrite.Kind.post.rawValue,
            let title = entry.payload.flatMap(PlannedWrite.init(payload:))?.title
        {
            store.createdPosts.withLock { $0[remoteID] = PlanResult.PostRef(title: title, author: entry.account) }
        }
        return entry
    }
    func markFailed(key: String, reason: String, retryAt: Date?, at now: Date) async throws -> JournalEntry {
        try await inner.markFailed(key: key, reason: reason, retryAt: retryAt, at: now)
    }
    func markUncertain(key: String, reason: String, retryAt: Date?, at now: Date) async throws -> JournalEntry {
        try await inner.markUncertain(key: key, reason: reason, retryAt: retryAt, at: now)
    }
    func pruneJournal(account: String, doneCreatedBefore date: Date) async throws -> Int {
        try await inner.pruneJournal(account: account, doneCreatedBefore: date)
    }
    func withdrawUnsent(key: String) async throws -> JournalEntry? { try await inner.withdrawUnsent(key: key) }
    func forgetContent(account: String, journalKey: String) async throws -> Int {
        try await inner.forgetContent(account: account, journalKey: journalKey)
    }
    func recordDedup(_ record: DedupRecord) async throws { try await inner.recordDedup(record) }
    func removeDedup(account: String, kind: DedupKind, target: String) async throws {
        try await inner.removeDedup(account: account, kind: kind, target: target)
    }
    func recordContent(_ record: ContentRecord) async throws { try await inner.recordContent(record) }
    func pruneContent(account: String, before date: Date) async throws -> Int {
        try await inner.pruneContent(account: account, before: date)
    }
    func setPause(_ pause: AccountPause) async throws { try await inner.setPause(pause) }
    func clearPause(account: String, kind: PauseKind) async throws {
        try await inner.clearPause(account: account, kind: kind)
    }
    func recordChallenge(_ challenge: StoredChallenge) async throws -> StoredChallenge {
        try await inner.recordChallenge(challenge)
    }
    func recordChallengeAttempt(code: String, at now: Date) async throws -> StoredChallenge {
        try await inner.recordChallengeAttempt(code: code, at: now)
    }
    func resolveChallenge(code: String, status: ChallengeStatus, at now: Date) async throws -> StoredChallenge {
        try await inner.resolveChallenge(code: code, status: status, at: now)
    }
    func acquireLease(account: String, holder: String, now: Date, ttl: TimeInterval) async throws -> LeaseResult {
        try await inner.acquireLease(account: account, holder: holder, now: now, ttl: ttl)
    }
    func renewLease(account: String, holder: String, token: Int64, now: Date, ttl: TimeInterval) async throws
        -> Lease?
    {
        try await inner.renewLease(account: account, holder: holder, token: token, now: now, ttl: ttl)
    }
    func releaseLease(account: String, holder: String) async throws -> Bool {
        try await inner.releaseLease(account: account, holder: holder)
    }
    func recordHeartbeat(_ heartbeat: Heartbeat) async throws { try await inner.recordHeartbeat(heartbeat) }
    func removeHeartbeat(holder: String) async throws { try await inner.removeHeartbeat(holder: holder) }
}
