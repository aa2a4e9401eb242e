import Foundation
import GRDB

extension SQLiteAccess {
    func recordIntent(_ intent: JournalIntent, at now: Date) throws -> RecordedIntent {
        try db.execute(
            sql: """
                INSERT INTO journal (key, account, recipe, job, occurrence, step, action, target, content_hash,
                    payload, state, attempts, created_at, updated_at, next_attempt_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'intent', 0, ?, ?, ?)
                ON CONFLICT (key) DO NOTHING
                """,
            arguments: [
                intent.key, intent.account, intent.recipe, intent.job, Self.seconds(intent.occurrence), intent.step,
                intent.action, intent.target, intent.contentHash, intent.payload, Self.seconds(now),
                Self.seconds(now), Self.seconds(intent.notBefore),
            ])
        let inserted = db.changesCount > 0
        guard let entry = try journalEntry(key: intent.key) else {
            throw StorageError(.database, "journal entry \(intent.key) vanished after insert")
        }
        return RecordedIntent(entry: entry, inserted: inserted)
    }

    func markSent(key: String, at now: Date) throws -> JournalEntry {
        try transition(
            key, to: .sent,
            set: "attempts = attempts + 1, sent_at = ?, next_attempt_at = NULL",
            arguments: [Self.seconds(now)], at: now)
    }

    func markDone(key: String, remoteID: String?, at now: Date) throws -> JournalEntry {
        try transition(
            key, to: .done, set: "remote_id = COALESCE(?, remote_id), next_attempt_at = NULL",
            arguments: [remoteID], at: now)
    }

    func markFailed(key: String, reason: String, retryAt: Date?, at now: Date) throws -> JournalEntry {
        try transition(
            key, to: .failed, set: "last_error = ?, next_attempt_at = ?", arguments: [reason, Self.seconds(retryAt)],
            at: now)
    }

    func markUncertain(key: String, reason: String, retryAt: Date?, at now: Date) throws -> JournalEntry {
        try transition(
            key, to: .uncertain, set: "last_error = ?, next_attempt_at = ?",
            arguments: [reason, Self.seconds(retryAt)],
            at: now)
    }

    func withdrawUnsent(key: String) throws -> JournalEntry? {
        guard let entry = try journalEntry(key: key),
            entry.state == .intent || (entry.state == .failed && entry.nextAttemptAt != nil)
        else { return nil }
        try db.execute(
            sql: "DELETE FROM journal WHERE key = ? AND state = ? AND next_attempt_at IS ?",
            arguments: [key, entry.state.rawValue, Self.seconds(entry.nextAttemptAt)])
        return db.changesCount == 1 ? entry : nil
    }

    func pruneJournal(account: String, doneCreatedBefore date: Date) throws -> Int {
        // A range of `journal_by_account_state` (account, state, created_at): with nothing to
        // delete it is one index seek, so the engine can ask at the end of every pass.
        try db.execute(
            sql: "DELETE FROM journal WHERE account = ? AND state = 'done' AND created_at < ?",
            arguments: [account, Self.seconds(date)])
        return db.changesCount
    }

    /// Moves `key` to `state` if the journal's state machine allows it, setting `assignments`.
    private func transition(
        _ key: String, to state: JournalState, set assignments: String, arguments: StatementArguments, at now: Date
    ) throws -> JournalEntry {
        guard let current = try journalEntry(key: key) else {
            throw StorageError(.notFound, "no journal entry \(key)")
        }
        guard current.state.canMove(to: state), !current.isFinished || state == .done else {
            throw StorageError(
                .illegalTransition,
                "journal entry \(key) is \(current.state.rawValue); it cannot become \(state.rawValue)")
        }
        // The state in the WHERE clause makes the check and the update one step even without
        // the surrounding transaction.
        try db.execute(
            sql: "UPDATE journal SET state = ?, updated_at = ?, \(assignments) WHERE key = ? AND state = ?",
            arguments: [state.rawValue, Self.seconds(now)] + arguments + [key, current.state.rawValue])
        guard db.changesCount == 1, let updated = try journalEntry(key: key) else {
            throw StorageError(.illegalTransition, "journal entry \(key) changed state concurrently")
        }
        return updated
    }
}
