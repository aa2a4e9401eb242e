import Foundation
import Storage
import Synchronization

/// The plan's state store: the in-memory copy of the real state, with every journaled intent
/// remembered (key, occurrence, rendered write) so the timeline can show what each report item
/// was about. Everything else passes straight through.
final class RecordingStateStore: StateStore, Sendable {
    /// One journaled write.
    struct Intent: Sendable {
        var intent: JournalIntent
        var write: PlannedWrite?
    }

    let inner: any StateStore
    let intents = Mutex<[String: Intent]>([:])
    /// The server's id of each post a journaled write created (journal key → id).
    let createdPosts = Mutex<[String: String]>([:])

    init(inner: any StateStore) { self.inner = inner }

    func read<T: Sendable>(_ body: @escaping @Sendable (any StateReader) throws -> T) async throws -> T {
        try await inner.read(body)
    }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any StateTransaction) throws -> T) async throws -> T {
        try await inner.transaction { transaction in try body(RecordingTransaction(inner: transaction, store: self)) }
    }

    func record(_ intent: JournalIntent) {
        let write = intent.payload.flatMap(PlannedWrite.init(payload:))
        // The payload is kept decoded only: a month of 100 recipes journals ~240 000 writes.
        var kept = intent
        kept.payload = nil
        intents.withLock { $0[intent.key] = Intent(intent: kept, write: write) }
    }

    /// The journaled write with this idempotency key (a report item's `key`).
    func intent(key: String) -> Intent? {
        intents.withLock { $0[key] }
    }

    /// The same, also for a write journaled before the plan began (the copied state's pending
    /// entries), read once from the copy.
    func knownIntent(key: String) async -> Intent? {
        if let known = intent(key: key) { return known }
        guard let entry = try? await inner.read({ try $0.journalEntry(key: key) }) ?? nil else { return nil }
        var intent = entry.intent
        intent.payload = nil  // kept decoded only, as in record(_:)
        let found = Intent(intent: intent, write: entry.payload.flatMap(PlannedWrite.init(payload:)))
        intents.withLock { $0[key] = found }
        return found
    }
}

/// Forwards every call to the real transaction handle; records intents on the way.
private struct RecordingTransaction: StateTransaction {
    let inner: any StateTransaction
    let store: RecordingStateStore

    func recordIntent(_ intent: JournalIntent, at now: Date) throws -> RecordedIntent {
        let recorded = try inner.recordIntent(intent, at: now)
        store.record(intent)
        return recorded
    }

    // MARK: Forwarded

    func limiterState(account: String, key: String) throws -> Data? {
        try inner.limiterState(account: account, key: key)
    }
    func limitHints(account: String) throws -> [LimitHint] { try inner.limitHints(account: account) }
    func scheduleCursor(recipe: String, job: String) throws -> Date? {
        try inner.scheduleCursor(recipe: recipe, job: job)
    }
    func queuePosition(recipe: String, queue: String) throws -> QueuePosition? {
        try inner.queuePosition(recipe: recipe, queue: queue)
    }
    func journalEntry(key: String) throws -> JournalEntry? { try inner.journalEntry(key: key) }
    func journalEntries(account: String, states: Set<JournalState>) throws -> [JournalEntry] {
        try inner.journalEntries(account: account, states: states)
    }
    func pendingJournalEntries(account: String) throws -> [JournalEntry] {
        try inner.pendingJournalEntries(account: account)
    }
    func journalTargets(account: String, actions: Set<String>) throws -> [String: Set<String>] {
        try inner.journalTargets(account: account, actions: actions)
    }
    func dedupRecords(account: String, kind: DedupKind, target: String) throws -> [DedupRecord] {
        try inner.dedupRecords(account: account, kind: kind, target: target)
    }
    func dedupTargets(account: String, kind: DedupKind, value: String?) throws -> Set<String> {
        try inner.dedupTargets(account: account, kind: kind, value: value)
    }
    func contentRecords(account: String, since: Date) throws -> [ContentRecord] {
        try inner.contentRecords(account: account, since: since)
    }
    func pauses(account: String) throws -> [AccountPause] { try inner.pauses(account: account) }
    func challenge(code: String) throws -> StoredChallenge? { try inner.challenge(code: code) }
    func challenges(account: String, status: ChallengeStatus?, limit: Int) throws -> [StoredChallenge] {
        try inner.challenges(account: account, status: status, limit: limit)
    }
    func lease(account: String) throws -> Lease? { try inner.lease(account: account) }
    func holdsLease(account: String, holder: String, now: Date) throws -> Bool {
        try inner.holdsLease(account: account, holder: holder, now: now)
    }
    func heartbeats() throws -> [Heartbeat] { try inner.heartbeats() }
    func knownAccounts() throws -> [String] { try inner.knownAccounts() }
    func setLimiterState(_ state: Data, account: String, key: String, at now: Date) throws {
        try inner.setLimiterState(state, account: account, key: key, at: now)
    }
    func removeLimiterState(account: String, key: String) throws {
        try inner.removeLimiterState(account: account, key: key)
    }
    func setLimitHint(_ hint: LimitHint) throws { try inner.setLimitHint(hint) }
    func removeLimitHint(account: String, limitClass: String) throws {
        try inner.removeLimitHint(account: account, limitClass: limitClass)
    }
    func setScheduleCursor(recipe: String, job: String, lastFired: Date, at now: Date) throws {
        try inner.setScheduleCursor(recipe: recipe, job: job, lastFired: lastFired, at: now)
    }
    func setQueuePosition(_ position: QueuePosition, recipe: String, queue: String) throws {
        try inner.setQueuePosition(position, recipe: recipe, queue: queue)
    }
    func markSent(key: String, at now: Date) throws -> JournalEntry { try inner.markSent(key: key, at: now) }
    func markDone(key: String, remoteID: String?, at now: Date) throws -> JournalEntry {
        let entry = try inner.markDone(key: key, remoteID: remoteID, at: now)
        if let remoteID, entry.action == PlannedWrite.Kind.post.rawValue {
            store.createdPosts.withLock { $0[key] = remoteID }
        }
        return entry
    }
    func markFailed(key: String, reason: String, retryAt: Date?, at now: Date) throws -> JournalEntry {
        try inner.markFailed(key: key, reason: reason, retryAt: retryAt, at: now)
    }
    func markUncertain(key: String, reason: String, at now: Date) throws -> JournalEntry {
        try inner.markUncertain(key: key, reason: reason, at: now)
    }
    func pruneJournal(account: String, doneCreatedBefore date: Date) throws -> Int {
        try inner.pruneJournal(account: account, doneCreatedBefore: date)
    }
    func withdrawUnsent(key: String) throws -> JournalEntry? { try inner.withdrawUnsent(key: key) }
    func forgetContent(account: String, journalKey: String) throws -> Int {
        try inner.forgetContent(account: account, journalKey: journalKey)
    }
    func recordDedup(_ record: DedupRecord) throws { try inner.recordDedup(record) }
    func removeDedup(account: String, kind: DedupKind, target: String) throws {
        try inner.removeDedup(account: account, kind: kind, target: target)
    }
    func recordContent(_ record: ContentRecord) throws { try inner.recordContent(record) }
    func pruneContent(account: String, before date: Date) throws -> Int {
        try inner.pruneContent(account: account, before: date)
    }
    func setPause(_ pause: AccountPause) throws { try inner.setPause(pause) }
    func clearPause(account: String, kind: PauseKind) throws { try inner.clearPause(account: account, kind: kind) }
    func recordChallenge(_ challenge: StoredChallenge) throws -> StoredChallenge {
        try inner.recordChallenge(challenge)
    }
    func recordChallengeAttempt(code: String, at now: Date) throws -> StoredChallenge {
        try inner.recordChallengeAttempt(code: code, at: now)
    }
    func resolveChallenge(code: String, status: ChallengeStatus, at now: Date) throws -> StoredChallenge {
        try inner.resolveChallenge(code: code, status: status, at: now)
    }
    func acquireLease(account: String, holder: String, now: Date, ttl: TimeInterval) throws -> LeaseResult {
        try inner.acquireLease(account: account, holder: holder, now: now, ttl: ttl)
    }
    func renewLease(account: String, holder: String, now: Date, ttl: TimeInterval) throws -> Lease? {
        try inner.renewLease(account: account, holder: holder, now: now, ttl: ttl)
    }
    func releaseLease(account: String, holder: String) throws -> Bool {
        try inner.releaseLease(account: account, holder: holder)
    }
    func recordHeartbeat(_ heartbeat: Heartbeat) throws { try inner.recordHeartbeat(heartbeat) }
    func removeHeartbeat(holder: String) throws { try inner.removeHeartbeat(holder: holder) }
}
