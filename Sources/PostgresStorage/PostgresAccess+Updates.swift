import Foundation
import PostgresNIO
import Storage

extension PostgresAccess {
    // MARK: Limiter ledger

    func setLimiterState(_ state: Data, account: String, key: String, at now: Date) async throws {
        _ = try await rows(
            """
            INSERT INTO \(unescaped: s).limiter_state (account, key, state, updated_at)
            VALUES (\(account), \(key), \(state), \(now.timeIntervalSince1970))
            ON CONFLICT (account, key) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at
            """)
    }

    func removeLimiterState(account: String, key: String) async throws {
        _ = try await rows("DELETE FROM \(unescaped: s).limiter_state WHERE account = \(account) AND key = \(key)")
    }

    func setLimitHint(_ hint: LimitHint) async throws {
        _ = try await rows(
            """
            INSERT INTO \(unescaped: s).limit_hints (account, limit_class, not_before, source, detail, recorded_at)
            VALUES (\(hint.account), \(hint.limitClass), \(hint.notBefore.timeIntervalSince1970), \(hint.source),
                \(hint.detail), \(hint.recordedAt.timeIntervalSince1970))
            ON CONFLICT (account, limit_class) DO UPDATE SET not_before = excluded.not_before,
                source = excluded.source, detail = excluded.detail, recorded_at = excluded.recorded_at
            """)
    }

    func removeLimitHint(account: String, limitClass: String) async throws {
        _ = try await rows(
            "DELETE FROM \(unescaped: s).limit_hints WHERE account = \(account) AND limit_class = \(limitClass)")
    }

    // MARK: Schedules and queues

    func setScheduleCursor(recipe: String, job: String, lastFired: Date, at now: Date) async throws {
        _ = try await rows(
            """
            INSERT INTO \(unescaped: s).schedule_cursors (recipe, job, last_fired, updated_at)
            VALUES (\(recipe), \(job), \(lastFired.timeIntervalSince1970), \(now.timeIntervalSince1970))
            ON CONFLICT (recipe, job) DO UPDATE SET last_fired = excluded.last_fired, updated_at = excluded.updated_at
            """)
    }

    func setQueuePosition(_ position: QueuePosition, recipe: String, queue: String) async throws {
        _ = try await rows(
            """
            INSERT INTO \(unescaped: s).queue_positions (recipe, queue, next_index, last_item, updated_at)
            VALUES (\(recipe), \(queue), \(position.next), \(position.lastItem)::text,
                \(position.updatedAt.timeIntervalSince1970))
            ON CONFLICT (recipe, queue) DO UPDATE SET next_index = excluded.next_index,
                last_item = excluded.last_item, updated_at = excluded.updated_at
            """)
    }

    // MARK: Dedup facts

    func recordDedup(_ record: DedupRecord) async throws {
        if record.kind.isSingleValued {
            _ = try await rows(
                """
                DELETE FROM \(unescaped: s).dedup WHERE account = \(record.account) AND kind = \(record.kind.rawValue)
                AND target = \(record.target) AND value <> \(record.value)
                """)
        }
        _ = try await rows(
            """
            INSERT INTO \(unescaped: s).dedup AS dedup (account, kind, target, value, recorded_at, journal_key)
            VALUES (\(record.account), \(record.kind.rawValue), \(record.target), \(record.value),
                \(record.recordedAt.timeIntervalSince1970), \(record.journalKey)::text)
            ON CONFLICT (account, kind, target, value) DO UPDATE SET recorded_at = excluded.recorded_at,
                journal_key = COALESCE(excluded.journal_key, dedup.journal_key)
            """)
    }

    func removeDedup(account: String, kind: DedupKind, target: String) async throws {
        _ = try await rows(
            """
            DELETE FROM \(unescaped: s).dedup WHERE account = \(account) AND kind = \(kind.rawValue)
            AND target = \(target)
            """)
    }

    // MARK: Content ledger

    func recordContent(_ record: ContentRecord) async throws {
        _ = try await rows(
            """
            INSERT INTO \(unescaped: s).content_ledger (account, kind, fingerprint, signature, recorded_at,
                journal_key, excerpt)
            VALUES (\(record.account), \(record.kind), \(record.fingerprint), \(record.signature),
                \(record.recordedAt.timeIntervalSince1970), \(record.journalKey)::text, \(record.excerpt))
            """)
    }

    func pruneContent(account: String, before date: Date) async throws -> Int {
        try await count(
            """
            WITH deleted AS (
                DELETE FROM \(unescaped: s).content_ledger WHERE account = \(account)
                AND recorded_at < \(date.timeIntervalSince1970) RETURNING 1)
            SELECT count(*) FROM deleted
            """)
    }

    func forgetContent(account: String, journalKey: String) async throws -> Int {
        try await count(
            """
            WITH deleted AS (
                DELETE FROM \(unescaped: s).content_ledger WHERE account = \(account)
                AND journal_key = \(journalKey) RETURNING 1)
            SELECT count(*) FROM deleted
            """)
    }

    // MARK: Pauses and challenges

    func setPause(_ pause: AccountPause) async throws {
        _ = try await rows(
            """
            INSERT INTO \(unescaped: s).pauses (account, kind, until, reason, created_at)
            VALUES (\(pause.account), \(pause.kind.rawValue), \(pause.until?.timeIntervalSince1970)::double precision,
                \(pause.reason), \(pause.createdAt.timeIntervalSince1970))
            ON CONFLICT (account, kind) DO UPDATE SET until = excluded.until, reason = excluded.reason,
                created_at = excluded.created_at
            """)
    }

    func clearPause(account: String, kind: PauseKind) async throws {
        _ = try await rows(
            "DELETE FROM \(unescaped: s).pauses WHERE account = \(account) AND kind = \(kind.rawValue)")
    }

    func recordChallenge(_ challenge: StoredChallenge) async throws -> StoredChallenge {
        _ = try await rows(
            """
            INSERT INTO \(unescaped: s).challenges (code, account, text, expires_at, content_type, content_id,
                journal_key, attempts, status, created_at, updated_at, answer_path, instructions)
            VALUES (\(challenge.code), \(challenge.account), \(challenge.text),
                \(challenge.expiresAt?.timeIntervalSince1970)::double precision, \(challenge.contentType),
                \(challenge.contentID)::text, \(challenge.journalKey)::text, \(challenge.attempts),
                \(challenge.status.rawValue), \(challenge.createdAt.timeIntervalSince1970),
                \(challenge.updatedAt.timeIntervalSince1970), \(challenge.answerPath)::text,
                \(challenge.instructions)::text)
            ON CONFLICT (code) DO NOTHING
            """)
        return try await existingChallenge(challenge.code)
    }

    func recordChallengeAttempt(code: String, at now: Date) async throws -> StoredChallenge {
        try await updatedChallenge(
            code,
            """
            UPDATE \(unescaped: s).challenges SET attempts = attempts + 1, updated_at = \(now.timeIntervalSince1970)
            WHERE code = \(code) RETURNING *
            """)
    }

    func resolveChallenge(code: String, status: ChallengeStatus, at now: Date) async throws -> StoredChallenge {
        try await updatedChallenge(
            code,
            """
            UPDATE \(unescaped: s).challenges SET status = \(status.rawValue), updated_at = \(now.timeIntervalSince1970)
            WHERE code = \(code) RETURNING *
            """)
    }

    private func existingChallenge(_ code: String) async throws -> StoredChallenge {
        guard let stored = try await challenge(code: code) else {
            throw StorageError(.notFound, "no challenge \(code)")
        }
        return stored
    }

    private func updatedChallenge(_ code: String, _ update: PostgresQuery) async throws -> StoredChallenge {
        guard let row = try await rows(update).first else { throw StorageError(.notFound, "no challenge \(code)") }
        return try Self.challenge(row)
    }

    // MARK: Leases and health

    func acquireLease(account: String, holder: String, now: Date, ttl: TimeInterval) async throws -> LeaseResult {
        precondition(ttl > 0, "a lease needs a positive time to live")
        // One statement, as SQLite's: insert, or take over only an expired (or released) lease
        // or one's own. PostgreSQL locks the conflicting row until this transaction ends, so
        // racing processes serialise on it and exactly one sees its own holder; the row as it
        // stands is read back when this one did not change it.
        let changed = try await rows(
            """
            INSERT INTO \(unescaped: s).leases AS leases (account, holder, acquired_at, expires_at, token)
            VALUES (\(account), \(holder), \(now.timeIntervalSince1970), \(now.addingTimeInterval(ttl).timeIntervalSince1970), 1)
            ON CONFLICT (account) DO UPDATE SET
                acquired_at = CASE WHEN leases.holder = excluded.holder
                    AND leases.expires_at > excluded.acquired_at
                    THEN leases.acquired_at ELSE excluded.acquired_at END,
                token = CASE WHEN leases.holder = excluded.holder THEN leases.token ELSE leases.token + 1 END,
                holder = excluded.holder,
                expires_at = excluded.expires_at
            WHERE leases.holder = excluded.holder OR leases.expires_at <= excluded.acquired_at
            RETURNING *
            """
        ).first.map(Self.lease)
        let found = if let changed { changed } else { try await lease(account: account) }
        guard let lease = found else {
            throw StorageError(.database, "lease of \(account) vanished after upsert")
        }
        return lease.holder == holder ? .acquired(lease) : .heldBy(holder: lease.holder, until: lease.expiresAt)
    }

    func renewLease(account: String, holder: String, token: Int64, now: Date, ttl: TimeInterval) async throws
        -> Lease?
    {
        precondition(ttl > 0, "a lease needs a positive time to live")
        // A plain UPDATE: the row stays locked until this transaction ends, so a takeover by
        // another process waits for the fenced writes of this one (and then sees the renewal).
        return try await rows(
            """
            UPDATE \(unescaped: s).leases SET expires_at = \(now.addingTimeInterval(ttl).timeIntervalSince1970)
            WHERE account = \(account) AND holder = \(holder) AND holder <> '' AND token = \(token)
            RETURNING *
            """
        ).first.map(Self.lease)
    }

    func releaseLease(account: String, holder: String) async throws -> Bool {
        // The row stays, holder-less and expired, so the account's token keeps counting.
        try await rows(
            """
            UPDATE \(unescaped: s).leases SET holder = '', expires_at = 0
            WHERE account = \(account) AND holder = \(holder) AND holder <> '' RETURNING 1
            """
        ).count == 1
    }

    func recordHeartbeat(_ heartbeat: Heartbeat) async throws {
        _ = try await rows(
            """
            INSERT INTO \(unescaped: s).heartbeats (holder, started_at, last_tick, detail)
            VALUES (\(heartbeat.holder), \(heartbeat.startedAt.timeIntervalSince1970),
                \(heartbeat.lastTick.timeIntervalSince1970), \(heartbeat.detail))
            ON CONFLICT (holder) DO UPDATE SET
                started_at = excluded.started_at, last_tick = excluded.last_tick, detail = excluded.detail
            """)
    }

    func removeHeartbeat(holder: String) async throws {
        _ = try await rows("DELETE FROM \(unescaped: s).heartbeats WHERE holder = \(holder)")
    }
}
