import Foundation
import GRDB

extension SQLiteAccess {
    // MARK: Limiter ledger

    func setLimiterState(_ state: Data, account: String, key: String, at now: Date) throws {
        try db.execute(
            sql: """
                INSERT INTO limiter_state (account, key, state, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (account, key) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at
                """,
            arguments: [account, key, state, Self.seconds(now)])
    }

    func removeLimiterState(account: String, key: String) throws {
        try db.execute(sql: "DELETE FROM limiter_state WHERE account = ? AND key = ?", arguments: [account, key])
    }

    func setLimitHint(_ hint: LimitHint) throws {
        try db.execute(
            sql: """
                INSERT INTO limit_hints (account, limit_class, not_before, source, detail, recorded_at)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (account, limit_class) DO UPDATE SET not_before = excluded.not_before,
                    source = excluded.source, detail = excluded.detail, recorded_at = excluded.recorded_at
                """,
            arguments: [
                hint.account, hint.limitClass, Self.seconds(hint.notBefore), hint.source, hint.detail,
                Self.seconds(hint.recordedAt),
            ])
    }

    func removeLimitHint(account: String, limitClass: String) throws {
        try db.execute(
            sql: "DELETE FROM limit_hints WHERE account = ? AND limit_class = ?", arguments: [account, limitClass])
    }

    // MARK: Schedules and queues

    func setScheduleCursor(recipe: String, job: String, lastFired: Date, at now: Date) throws {
        try db.execute(
            sql: """
                INSERT INTO schedule_cursors (recipe, job, last_fired, updated_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (recipe, job) DO UPDATE SET last_fired = excluded.last_fired,
                    updated_at = excluded.updated_at
                """,
            arguments: [recipe, job, Self.seconds(lastFired), Self.seconds(now)])
    }

    func setQueuePosition(_ position: QueuePosition, recipe: String, queue: String) throws {
        try db.execute(
            sql: """
                INSERT INTO queue_positions (recipe, queue, next_index, last_item, updated_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (recipe, queue) DO UPDATE SET next_index = excluded.next_index,
                    last_item = excluded.last_item, updated_at = excluded.updated_at
                """,
            arguments: [recipe, queue, position.next, position.lastItem, Self.seconds(position.updatedAt)])
    }

    // MARK: Dedup facts

    func recordDedup(_ record: DedupRecord) throws {
        if record.kind.isSingleValued {
            try db.execute(
                sql: "DELETE FROM dedup WHERE account = ? AND kind = ? AND target = ? AND value <> ?",
                arguments: [record.account, record.kind.rawValue, record.target, record.value])
        }
        try db.execute(
            sql: """
                INSERT INTO dedup (account, kind, target, value, recorded_at, journal_key) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (account, kind, target, value) DO UPDATE SET recorded_at = excluded.recorded_at,
                    journal_key = COALESCE(excluded.journal_key, dedup.journal_key)
                """,
            arguments: [
                record.account, record.kind.rawValue, record.target, record.value, Self.seconds(record.recordedAt),
                record.journalKey,
            ])
    }

    func removeDedup(account: String, kind: DedupKind, target: String) throws {
        try db.execute(
            sql: "DELETE FROM dedup WHERE account = ? AND kind = ? AND target = ?",
            arguments: [account, kind.rawValue, target])
    }

    // MARK: Content ledger

    func recordContent(_ record: ContentRecord) throws {
        try db.execute(
            sql: """
                INSERT INTO content_ledger (account, kind, fingerprint, signature, recorded_at, journal_key, excerpt)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                record.account, record.kind, record.fingerprint, record.signature, Self.seconds(record.recordedAt),
                record.journalKey, record.excerpt,
            ])
    }

    func pruneContent(account: String, before date: Date) throws -> Int {
        try db.execute(
            sql: "DELETE FROM content_ledger WHERE account = ? AND recorded_at < ?",
            arguments: [account, Self.seconds(date)])
        return db.changesCount
    }

    func forgetContent(account: String, journalKey: String) throws -> Int {
        try db.execute(
            sql: "DELETE FROM content_ledger WHERE account = ? AND journal_key = ?", arguments: [account, journalKey])
        return db.changesCount
    }

    // MARK: Pauses and challenges

    func setPause(_ pause: AccountPause) throws {
        try db.execute(
            sql: """
                INSERT INTO pauses (account, kind, until, reason, created_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (account, kind) DO UPDATE SET until = excluded.until, reason = excluded.reason,
                    created_at = excluded.created_at
                """,
            arguments: [
                pause.account, pause.kind.rawValue, Self.seconds(pause.until), pause.reason,
                Self.seconds(pause.createdAt),
            ])
    }

    func clearPause(account: String, kind: PauseKind) throws {
        try db.execute(sql: "DELETE FROM pauses WHERE account = ? AND kind = ?", arguments: [account, kind.rawValue])
    }

    func recordChallenge(_ challenge: StoredChallenge) throws -> StoredChallenge {
        try db.execute(
            sql: """
                INSERT INTO challenges (code, account, text, expires_at, content_type, content_id, journal_key,
                    attempts, status, created_at, updated_at, answer_path, instructions)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (code) DO NOTHING
                """,
            arguments: [
                challenge.code, challenge.account, challenge.text, Self.seconds(challenge.expiresAt),
                challenge.contentType, challenge.contentID, challenge.journalKey, challenge.attempts,
                challenge.status.rawValue, Self.seconds(challenge.createdAt), Self.seconds(challenge.updatedAt),
                challenge.answerPath, challenge.instructions,
            ])
        return try existingChallenge(challenge.code)
    }

    func recordChallengeAttempt(code: String, at now: Date) throws -> StoredChallenge {
        try db.execute(
            sql: "UPDATE challenges SET attempts = attempts + 1, updated_at = ? WHERE code = ?",
            arguments: [Self.seconds(now), code])
        return try existingChallenge(code)
    }

    func resolveChallenge(code: String, status: ChallengeStatus, at now: Date) throws -> StoredChallenge {
        try db.execute(
            sql: "UPDATE challenges SET status = ?, updated_at = ? WHERE code = ?",
            arguments: [status.rawValue, Self.seconds(now), code])
        return try existingChallenge(code)
    }

    private func existingChallenge(_ code: String) throws -> StoredChallenge {
        guard let stored = try challenge(code: code) else { throw StorageError(.notFound, "no challenge \(code)") }
        return stored
    }
}
