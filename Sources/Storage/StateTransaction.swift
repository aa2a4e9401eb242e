import Foundation

/// Queries and updates inside one atomic transaction: everything done through it is committed
/// together when the closure returns, and nothing is when it throws.
///
/// Valid only inside the `transaction` closure that handed it out; never keep it.
public protocol StateTransaction: StateReader {
    // MARK: Limiter ledger

    /// Stores the limiter's opaque state for `key` of `account`.
    func setLimiterState(_ state: Data, account: String, key: String, at now: Date) async throws
    /// Forgets the limiter's state for `key` of `account`.
    func removeLimiterState(account: String, key: String) async throws
    /// Stores the hint for (`hint.account`, `hint.limitClass`), replacing the previous one.
    /// The limiter decides what to store (the max of local and hinted times).
    func setLimitHint(_ hint: LimitHint) async throws
    /// Forgets the hint of one class.
    func removeLimitHint(account: String, limitClass: String) async throws

    // MARK: Schedules and queues

    /// Records the last fired occurrence of a recipe's job.
    func setScheduleCursor(recipe: String, job: String, lastFired: Date, at now: Date) async throws
    /// Records how far a recipe has got through a content-queue file.
    func setQueuePosition(_ position: QueuePosition, recipe: String, queue: String) async throws

    // MARK: Journal

    /// Records the intent of a write, or returns the entry already under its key untouched
    /// (whatever its state: a second run of the same occurrence finds the first one's entry).
    func recordIntent(_ intent: JournalIntent, at now: Date) async throws -> RecordedIntent
    /// The request is about to leave: `sent`, one more attempt, `sentAt = now`.
    func markSent(key: String, at now: Date) async throws -> JournalEntry
    /// Applied; keeps the previous `remoteID` when `remoteID` is nil.
    func markDone(key: String, remoteID: String?, at now: Date) async throws -> JournalEntry
    /// Refused or given up. With `retryAt`, the entry stays pending until then; without, it is finished.
    func markFailed(key: String, reason: String, retryAt: Date?, at now: Date) async throws -> JournalEntry
    /// The outcome is unknown: read back before anything is sent again (not before `retryAt`,
    /// when given: what was read did not say, and it is read again then).
    func markUncertain(key: String, reason: String, retryAt: Date?, at now: Date) async throws -> JournalEntry
    /// Deletes `account`'s `done` entries created before `date`; returns how many. Dedup
    /// records and challenges keep their facts (their journal key is cleared). Entries in any
    /// other state stay: pending ones are work, and a finally failed comment or vote still counts
    /// as acted on (its outcome on the server may be unknown), so it must keep blocking its target.
    func pruneJournal(account: String, doneCreatedBefore date: Date) async throws -> Int
    /// Deletes the entry under `key` if it never took effect and is still waiting: `intent`, or
    /// `failed` with a retry time (refused by a limit, not applied). An expired write goes so,
    /// as if never planned: its target may be acted on by a later occurrence. Returns the entry
    /// deleted, or nil (no such entry, or one in another state, which stays).
    func withdrawUnsent(key: String) async throws -> JournalEntry?

    // MARK: Dedup facts

    /// Records a fact. For single-valued kinds (votes, follow, subscribe) it replaces any other
    /// value for the same target; for comments it adds one more content hash.
    func recordDedup(_ record: DedupRecord) async throws
    /// Forgets every fact of `kind` about `target` (unfollowed, unsubscribed, vote removed).
    func removeDedup(account: String, kind: DedupKind, target: String) async throws

    // MARK: Pauses and challenges

    /// Records content the agent sent (the duplicate guard's ledger).
    func recordContent(_ record: ContentRecord) async throws
    /// Deletes `account`'s content records older than `date`; returns how many.
    func pruneContent(account: String, before date: Date) async throws -> Int
    /// Deletes the content records of `account` made for the journal entry `journalKey` (a write
    /// withdrawn unsent: refused by a limit before the server took it); returns how many.
    func forgetContent(account: String, journalKey: String) async throws -> Int
    /// Sets the pause of (`pause.account`, `pause.kind`), replacing the previous one.
    func setPause(_ pause: AccountPause) async throws
    /// Lifts the pause of one kind.
    func clearPause(account: String, kind: PauseKind) async throws
    /// Records a challenge, or returns the one already stored under its code untouched.
    func recordChallenge(_ challenge: StoredChallenge) async throws -> StoredChallenge
    /// Counts one more answer sent for the challenge.
    func recordChallengeAttempt(code: String, at now: Date) async throws -> StoredChallenge
    /// Sets the challenge's status (solved, failed, expired).
    func resolveChallenge(code: String, status: ChallengeStatus, at now: Date) async throws -> StoredChallenge

    // MARK: Leases and health

    /// Takes the lease of `account` for `holder` until `now + ttl` when nobody holds it, its
    /// holder's lease expired (`expiresAt <= now`), or `holder` already holds it (extended).
    /// One atomic statement: of any number of racing callers, one wins. The token goes up by one
    /// when the holder changes (a new row starts at 1), and stays when `holder` extends its own.
    func acquireLease(account: String, holder: String, now: Date, ttl: TimeInterval) async throws -> LeaseResult
    /// Extends the lease to `now + ttl` if `holder` still holds it under `token` (even expired, as
    /// long as no one took it over since); nil when it was lost. The fence of every write's
    /// journal transaction (`AccountPass+Fence`).
    func renewLease(account: String, holder: String, token: Int64, now: Date, ttl: TimeInterval) async throws
        -> Lease?
    /// Gives the lease up if `holder` holds it; returns whether it did. The account's token
    /// counter is kept (the next holder's token is larger than every earlier one).
    func releaseLease(account: String, holder: String) async throws -> Bool
    /// Records a sign of life of an engine process.
    func recordHeartbeat(_ heartbeat: Heartbeat) async throws
    /// Forgets a process's heartbeat (at clean exit).
    func removeHeartbeat(holder: String) async throws
}

extension StateTransaction {
    /// `markUncertain` to be read back on the next pass.
    public func markUncertain(key: String, reason: String, at now: Date) async throws -> JournalEntry {
        try await markUncertain(key: key, reason: reason, retryAt: nil, at: now)
    }
}
