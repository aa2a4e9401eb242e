import Foundation
import PostgresNIO
import Storage

extension PostgresAccess {
    func recordIntent(_ intent: JournalIntent, at now: Date) async throws -> RecordedIntent {
        let now = now.timeIntervalSince1970
        // Two statements, as SQLite: under read committed the second sees a row another
        // process inserted (and committed) while this insert waited for it.
        let inserted =
            try await rows(
                """
                INSERT INTO \(unescaped: s).journal (key, account, recipe, job, occurrence, step, action, target,
                    content_hash, payload, state, attempts, created_at, updated_at, next_attempt_at)
                VALUES (\(intent.key), \(intent.account), \(intent.recipe), \(intent.job),
                    \(intent.occurrence.timeIntervalSince1970), \(intent.step), \(intent.action), \(intent.target)::text,
                    \(intent.contentHash), \(intent.payload)::bytea, 'intent', 0, \(now), \(now),
                    \(intent.notBefore?.timeIntervalSince1970)::double precision)
                ON CONFLICT (key) DO NOTHING RETURNING 1
                """
            ).count > 0
        guard let entry = try await journalEntry(key: intent.key) else {
            throw StorageError(.database, "journal entry \(intent.key) vanished after insert")
        }
        return RecordedIntent(entry: entry, inserted: inserted)
    }

    func markSent(key: String, at now: Date) async throws -> JournalEntry {
        let now = now.timeIntervalSince1970
        return try await transition(key, to: .sent) { current in
            """
            UPDATE \(unescaped: s).journal SET state = 'sent', updated_at = \(now), attempts = attempts + 1,
                sent_at = \(now), next_attempt_at = NULL
            WHERE key = \(key) AND state = \(current.rawValue) RETURNING *
            """
        }
    }

    func markDone(key: String, remoteID: String?, at now: Date) async throws -> JournalEntry {
        try await transition(key, to: .done) { current in
            """
            UPDATE \(unescaped: s).journal SET state = 'done', updated_at = \(now.timeIntervalSince1970),
                remote_id = COALESCE(\(remoteID)::text, remote_id), next_attempt_at = NULL
            WHERE key = \(key) AND state = \(current.rawValue) RETURNING *
            """
        }
    }

    func markFailed(key: String, reason: String, retryAt: Date?, at now: Date) async throws -> JournalEntry {
        try await transition(key, to: .failed) { current in
            """
            UPDATE \(unescaped: s).journal SET state = 'failed', updated_at = \(now.timeIntervalSince1970),
                last_error = \(reason), next_attempt_at = \(retryAt?.timeIntervalSince1970)::double precision
            WHERE key = \(key) AND state = \(current.rawValue) RETURNING *
            """
        }
    }

    func markUncertain(key: String, reason: String, retryAt: Date?, at now: Date) async throws -> JournalEntry {
        try await transition(key, to: .uncertain) { current in
            """
            UPDATE \(unescaped: s).journal SET state = 'uncertain', updated_at = \(now.timeIntervalSince1970),
                last_error = \(reason), next_attempt_at = \(retryAt?.timeIntervalSince1970)::double precision
            WHERE key = \(key) AND state = \(current.rawValue) RETURNING *
            """
        }
    }

    func withdrawUnsent(key: String) async throws -> JournalEntry? {
        guard let entry = try await journalEntry(key: key),
            entry.state == .intent || (entry.state == .failed && entry.nextAttemptAt != nil)
        else { return nil }
        let deleted = try await rows(
            """
            DELETE FROM \(unescaped: s).journal WHERE key = \(key) AND state = \(entry.state.rawValue)
            AND next_attempt_at IS NOT DISTINCT FROM \(entry.nextAttemptAt?.timeIntervalSince1970)::double precision
            RETURNING 1
            """
        ).count
        return deleted == 1 ? entry : nil
    }

    func pruneJournal(account: String, doneCreatedBefore date: Date) async throws -> Int {
        // A range of `journal_by_account_state` (account, state, created_at), as in SQLite.
        try await count(
            """
            WITH deleted AS (
                DELETE FROM \(unescaped: s).journal WHERE account = \(account) AND state = 'done'
                AND created_at < \(date.timeIntervalSince1970) RETURNING 1)
            SELECT count(*) FROM deleted
            """)
    }

    /// Moves `key` to `state` if the journal's state machine allows it: `update` (given the
    /// current state, which its WHERE clause must repeat, so that the check and the update are
    /// one step even against another process) returns the updated row.
    private func transition(
        _ key: String, to state: JournalState, update: (JournalState) throws -> PostgresQuery
    ) async throws -> JournalEntry {
        guard let current = try await journalEntry(key: key) else {
            throw StorageError(.notFound, "no journal entry \(key)")
        }
        guard current.state.canMove(to: state), !current.isFinished || state == .done else {
            throw StorageError(
                .illegalTransition,
                "journal entry \(key) is \(current.state.rawValue); it cannot become \(state.rawValue)")
        }
        guard let updated = try await rows(try update(current.state)).first else {
            throw StorageError(.illegalTransition, "journal entry \(key) changed state concurrently")
        }
        return try Self.journalEntry(updated)
    }
}
