import Foundation
import GRDB

/// The statements of the store's queries and updates on one GRDB connection, inside the
/// transaction a lane opened (or GRDB's own, for `blockingTransaction`). Synchronous: it runs
/// within one access, on the connection's queue; the bodies' handles call it
/// (`SQLiteStateReader`, `SQLiteStateTransaction`).
struct SQLiteAccess {
    let db: Database

    // MARK: Limiter ledger

    func limiterState(account: String, key: String) throws -> Data? {
        try Data.fetchOne(
            db, sql: "SELECT state FROM limiter_state WHERE account = ? AND key = ?", arguments: [account, key])
    }

    func limitHints(account: String) throws -> [LimitHint] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM limit_hints WHERE account = ? ORDER BY limit_class", arguments: [account]
        )
        .map { row in
            LimitHint(
                account: row["account"], limitClass: row["limit_class"], notBefore: Self.date(row["not_before"]),
                source: row["source"], detail: row["detail"], recordedAt: Self.date(row["recorded_at"]))
        }
    }

    // MARK: Schedules and queues

    func scheduleCursor(recipe: String, job: String) throws -> Date? {
        try Double.fetchOne(
            db, sql: "SELECT last_fired FROM schedule_cursors WHERE recipe = ? AND job = ?", arguments: [recipe, job]
        ).map(Self.date)
    }

    func queuePosition(recipe: String, queue: String) throws -> QueuePosition? {
        try Row.fetchOne(
            db, sql: "SELECT * FROM queue_positions WHERE recipe = ? AND queue = ?", arguments: [recipe, queue]
        ).map { row in
            QueuePosition(next: row["next_index"], lastItem: row["last_item"], updatedAt: Self.date(row["updated_at"]))
        }
    }

    // MARK: Journal

    func journalEntry(key: String) throws -> JournalEntry? {
        try Row.fetchOne(db, sql: "SELECT * FROM journal WHERE key = ?", arguments: [key]).map(Self.journalEntry)
    }

    func journalEntries(account: String, states: Set<JournalState>) throws -> [JournalEntry] {
        guard !states.isEmpty else { return [] }
        let names = states.map(\.rawValue).sorted()
        let marks = Array(repeating: "?", count: names.count).joined(separator: ", ")
        return try Row.fetchAll(
            db,
            sql: """
                SELECT * FROM journal WHERE account = ? AND state IN (\(marks))
                ORDER BY created_at, occurrence, step, key
                """,
            arguments: StatementArguments([account] + names)
        ).map(Self.journalEntry)
    }

    func pendingJournalEntries(account: String) throws -> [JournalEntry] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT * FROM journal WHERE account = ?
                AND (state IN ('intent', 'sent', 'uncertain') OR (state = 'failed' AND next_attempt_at IS NOT NULL))
                ORDER BY created_at, occurrence, step, key
                """,
            arguments: [account]
        ).map(Self.journalEntry)
    }

    func journalTargets(account: String, actions: Set<String>) throws -> [String: Set<String>] {
        guard !actions.isEmpty else { return [:] }
        let names = actions.sorted()
        let marks = Array(repeating: "?", count: names.count).joined(separator: ", ")
        var result: [String: Set<String>] = [:]
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT DISTINCT action, target FROM journal
                WHERE account = ? AND target IS NOT NULL AND action IN (\(marks))
                """,
            arguments: StatementArguments([account] + names))
        for row in rows {
            result[row["action"] as String, default: []].insert(row["target"])
        }
        return result
    }

    // MARK: Dedup facts

    func dedupRecords(account: String, kind: DedupKind, target: String) throws -> [DedupRecord] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM dedup WHERE account = ? AND kind = ? AND target = ? ORDER BY recorded_at, value",
            arguments: [account, kind.rawValue, target]
        ).map { row in
            DedupRecord(
                account: row["account"], kind: kind, target: row["target"], value: row["value"],
                recordedAt: Self.date(row["recorded_at"]), journalKey: row["journal_key"])
        }
    }

    func dedupTargets(account: String, kind: DedupKind, value: String?) throws -> Set<String> {
        Set(
            try String.fetchAll(
                db,
                sql: "SELECT DISTINCT target FROM dedup WHERE account = ? AND kind = ? AND (? IS NULL OR value = ?)",
                arguments: [account, kind.rawValue, value, value]))
    }

    // MARK: Content ledger

    func contentRecords(account: String, since: Date) throws -> [ContentRecord] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT * FROM content_ledger WHERE account = ? AND recorded_at >= ?
                ORDER BY recorded_at, rowid
                """,
            arguments: [account, Self.seconds(since)]
        ).map(Self.contentRecord)
    }

    static func contentRecord(_ row: Row) -> ContentRecord {
        ContentRecord(
            account: row["account"], kind: row["kind"], fingerprint: row["fingerprint"], signature: row["signature"],
            recordedAt: date(row["recorded_at"]), journalKey: row["journal_key"], excerpt: row["excerpt"])
    }

    // MARK: Pauses and challenges

    func pauses(account: String) throws -> [AccountPause] {
        try Row.fetchAll(db, sql: "SELECT * FROM pauses WHERE account = ? ORDER BY kind", arguments: [account]).map {
            row in
            AccountPause(
                account: row["account"], kind: try Self.decode(PauseKind.self, row["kind"]),
                until: (row["until"] as Double?).map(Self.date), reason: row["reason"],
                createdAt: Self.date(row["created_at"]))
        }
    }

    func challenge(code: String) throws -> StoredChallenge? {
        try Row.fetchOne(db, sql: "SELECT * FROM challenges WHERE code = ?", arguments: [code]).map(Self.challenge)
    }

    func challenges(account: String, status: ChallengeStatus?, limit: Int) throws -> [StoredChallenge] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT * FROM challenges WHERE account = ? AND (? IS NULL OR status = ?)
                ORDER BY created_at DESC, code LIMIT ?
                """,
            arguments: [account, status?.rawValue, status?.rawValue, max(0, limit)]
        ).map(Self.challenge)
    }

    // MARK: Leases and health

    func lease(account: String) throws -> Lease? {
        try Row.fetchOne(
            db, sql: "SELECT * FROM leases WHERE account = ? AND holder <> ''", arguments: [account]
        ).map(Self.lease)
    }

    func leases() throws -> [Lease] {
        try Row.fetchAll(db, sql: "SELECT * FROM leases WHERE holder <> '' ORDER BY account").map(Self.lease)
    }

    private static func lease(_ row: Row) -> Lease {
        Lease(
            account: row["account"], holder: row["holder"], token: row["token"],
            acquiredAt: date(row["acquired_at"]), expiresAt: date(row["expires_at"]))
    }

    func holdsLease(account: String, holder: String, now: Date) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM leases WHERE account = ? AND holder = ? AND holder <> '' AND expires_at > ?)
                """,
            arguments: [account, holder, Self.seconds(now)]) ?? false
    }

    func heartbeats() throws -> [Heartbeat] {
        try Row.fetchAll(db, sql: "SELECT * FROM heartbeats ORDER BY holder").map { row in
            Heartbeat(
                holder: row["holder"], startedAt: Self.date(row["started_at"]), lastTick: Self.date(row["last_tick"]),
                detail: row["detail"])
        }
    }

    func knownAccounts() throws -> [String] {
        try String.fetchAll(
            db,
            sql: """
                SELECT account FROM limiter_state UNION SELECT account FROM limit_hints
                UNION SELECT account FROM journal UNION SELECT account FROM dedup
                UNION SELECT account FROM pauses UNION SELECT account FROM challenges
                UNION SELECT account FROM leases ORDER BY 1
                """)
    }

    // MARK: Conversions

    /// Times are stored as REAL seconds since 1970.
    static func seconds(_ date: Date) -> Double { date.timeIntervalSince1970 }

    static func seconds(_ date: Date?) -> Double? { date?.timeIntervalSince1970 }

    static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    static func decode<T: RawRepresentable>(_ type: T.Type, _ raw: String) throws -> T where T.RawValue == String {
        guard let value = T(rawValue: raw) else {
            throw StorageError(.database, "state database holds an unknown \(T.self) '\(raw)'")
        }
        return value
    }

    static func journalEntry(_ row: Row) throws -> JournalEntry {
        JournalEntry(
            intent: JournalIntent(
                key: row["key"], account: row["account"], recipe: row["recipe"], job: row["job"],
                occurrence: date(row["occurrence"]), step: row["step"], action: row["action"], target: row["target"],
                contentHash: row["content_hash"], payload: row["payload"],
                notBefore: (row["next_attempt_at"] as Double?).map(date)),
            state: try decode(JournalState.self, row["state"]), attempts: row["attempts"],
            createdAt: date(row["created_at"]), updatedAt: date(row["updated_at"]),
            sentAt: (row["sent_at"] as Double?).map(date), remoteID: row["remote_id"], lastError: row["last_error"])
    }

    static func challenge(_ row: Row) throws -> StoredChallenge {
        StoredChallenge(
            code: row["code"], account: row["account"], text: row["text"],
            expiresAt: (row["expires_at"] as Double?).map(date), contentType: row["content_type"],
            contentID: row["content_id"], journalKey: row["journal_key"], attempts: row["attempts"],
            status: try decode(ChallengeStatus.self, row["status"]), createdAt: date(row["created_at"]),
            updatedAt: date(row["updated_at"]), answerPath: row["answer_path"], instructions: row["instructions"])
    }
}
