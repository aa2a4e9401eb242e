import Foundation

extension SQLiteStateTransaction {
    func setLimiterState(_ state: Data, account: String, key: String, at now: Date) async throws {
        try await handle.run { try $0.setLimiterState(state, account: account, key: key, at: now) }
    }

    func removeLimiterState(account: String, key: String) async throws {
        try await handle.run { try $0.removeLimiterState(account: account, key: key) }
    }

    func setLimitHint(_ hint: LimitHint) async throws {
        try await handle.run { try $0.setLimitHint(hint) }
    }

    func removeLimitHint(account: String, limitClass: String) async throws {
        try await handle.run { try $0.removeLimitHint(account: account, limitClass: limitClass) }
    }

    func setScheduleCursor(recipe: String, job: String, lastFired: Date, at now: Date) async throws {
        try await handle.run { try $0.setScheduleCursor(recipe: recipe, job: job, lastFired: lastFired, at: now) }
    }

    func setQueuePosition(_ position: QueuePosition, recipe: String, queue: String) async throws {
        try await handle.run { try $0.setQueuePosition(position, recipe: recipe, queue: queue) }
    }

    func recordIntent(_ intent: JournalIntent, at now: Date) async throws -> RecordedIntent {
        try await handle.run { try $0.recordIntent(intent, at: now) }
    }

    func markSent(key: String, at now: Date) async throws -> JournalEntry {
        try await handle.run { try $0.markSent(key: key, at: now) }
    }

    func markDone(key: String, remoteID: String?, at now: Date) async throws -> JournalEntry {
        try await handle.run { try $0.markDone(key: key, remoteID: remoteID, at: now) }
    }

    func markFailed(key: String, reason: String, retryAt: Date?, at now: Date) async throws -> JournalEntry {
        try await handle.run { try $0.markFailed(key: key, reason: reason, retryAt: retryAt, at: now) }
    }

    func markUncertain(key: String, reason: String, retryAt: Date?, at now: Date) async throws -> JournalEntry {
        try await handle.run { try $0.markUncertain(key: key, reason: reason, retryAt: retryAt, at: now) }
    }

    func pruneJournal(account: String, doneCreatedBefore date: Date) async throws -> Int {
        try await handle.run { try $0.pruneJournal(account: account, doneCreatedBefore: date) }
    }

    func withdrawUnsent(key: String) async throws -> JournalEntry? {
        try await handle.run { try $0.withdrawUnsent(key: key) }
    }

    func recordDedup(_ record: DedupRecord) async throws {
        try await handle.run { try $0.recordDedup(record) }
    }

    func removeDedup(account: String, kind: DedupKind, target: String) async throws {
        try await handle.run { try $0.removeDedup(account: account, kind: kind, target: target) }
    }

    func recordContent(_ record: ContentRecord) async throws {
        try await handle.run { try $0.recordContent(record) }
    }

    func pruneContent(account: String, before date: Date) async throws -> Int {
        try await handle.run { try $0.pruneContent(account: account, before: date) }
    }

    func forgetContent(account: String, journalKey: String) async throws -> Int {
        try await handle.run { try $0.forgetContent(account: account, journalKey: journalKey) }
    }

    func setPause(_ pause: AccountPause) async throws {
        try await handle.run { try $0.setPause(pause) }
    }

    func clearPause(account: String, kind: PauseKind) async throws {
        try await handle.run { try $0.clearPause(account: account, kind: kind) }
    }

    func recordChallenge(_ challenge: StoredChallenge) async throws -> StoredChallenge {
        try await handle.run { try $0.recordChallenge(challenge) }
    }

    func recordChallengeAttempt(code: String, at now: Date) async throws -> StoredChallenge {
        try await handle.run { try $0.recordChallengeAttempt(code: code, at: now) }
    }

    func resolveChallenge(code: String, status: ChallengeStatus, at now: Date) async throws -> StoredChallenge {
        try await handle.run { try $0.resolveChallenge(code: code, status: status, at: now) }
    }

    func acquireLease(account: String, holder: String, now: Date, ttl: TimeInterval) async throws -> LeaseResult {
        try await handle.run { try $0.acquireLease(account: account, holder: holder, now: now, ttl: ttl) }
    }

    func renewLease(account: String, holder: String, token: Int64, now: Date, ttl: TimeInterval) async throws
        -> Lease?
    {
        try await handle.run { try $0.renewLease(account: account, holder: holder, token: token, now: now, ttl: ttl) }
    }

    func releaseLease(account: String, holder: String) async throws -> Bool {
        try await handle.run { try $0.releaseLease(account: account, holder: holder) }
    }

    func recordHeartbeat(_ heartbeat: Heartbeat) async throws {
        try await handle.run { try $0.recordHeartbeat(heartbeat) }
    }

    func removeHeartbeat(holder: String) async throws {
        try await handle.run { try $0.removeHeartbeat(holder: holder) }
    }
}
