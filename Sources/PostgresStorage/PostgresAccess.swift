import Foundation
import PostgresNIO
import Storage

/// The store's queries and updates, each one or two round trips on the connection the store
/// lent for the body (`PostgresHandle`), inside the body's transaction. The statements are the
/// SQLite store's, in PostgreSQL's dialect: the same conditions, orderings and upserts.
///
/// Both bodies get this handle: a `read` body's transaction is `READ ONLY`, so the server
/// refuses an update through it.
struct PostgresAccess: StateTransaction {
    let handle: PostgresHandle
    /// The schema, quoted.
    let s: String

    // MARK: Limiter ledger

    func limiterState(account: String, key: String) async throws -> Data? {
        try await first("SELECT state FROM \(unescaped: s).limiter_state WHERE account = \(account) AND key = \(key)") {
            try $0.decode(Data.self)
        }
    }

    func limitHints(account: String) async throws -> [LimitHint] {
        try await rows(
            "SELECT * FROM \(unescaped: s).limit_hints WHERE account = \(account) ORDER BY limit_class"
        ).map { row in
            LimitHint(
                account: try row("account"), limitClass: try row("limit_class"), notBefore: try row.date("not_before"),
                source: try row("source"), detail: try row("detail"), recordedAt: try row.date("recorded_at"))
        }
    }

    // MARK: Schedules and queues

    func scheduleCursor(recipe: String, job: String) async throws -> Date? {
        try await first(
            "SELECT last_fired FROM \(unescaped: s).schedule_cursors WHERE recipe = \(recipe) AND job = \(job)"
        ) { Date(timeIntervalSince1970: try $0.decode(Double.self)) }
    }

    func queuePosition(recipe: String, queue: String) async throws -> QueuePosition? {
        try await rows(
            "SELECT * FROM \(unescaped: s).queue_positions WHERE recipe = \(recipe) AND queue = \(queue)"
        ).first.map { row in
            QueuePosition(
                next: try row("next_index"), lastItem: try row("last_item"), updatedAt: try row.date("updated_at"))
        }
    }

    // MARK: Journal

    func journalEntry(key: String) async throws -> JournalEntry? {
        try await rows("SELECT * FROM \(unescaped: s).journal WHERE key = \(key)").first.map(Self.journalEntry)
    }

    func journalEntries(account: String, states: Set<JournalState>) async throws -> [JournalEntry] {
        guard !states.isEmpty else { return [] }
        return try await rows(
            """
            SELECT * FROM \(unescaped: s).journal WHERE account = \(account) AND state = ANY(\(states.map(\.rawValue).sorted()))
            ORDER BY created_at, occurrence, step, key
            """
        ).map(Self.journalEntry)
    }

    func pendingJournalEntries(account: String) async throws -> [JournalEntry] {
        try await rows(
            """
            SELECT * FROM \(unescaped: s).journal WHERE account = \(account)
            AND (state IN ('intent', 'sent', 'uncertain') OR (state = 'failed' AND next_attempt_at IS NOT NULL))
            ORDER BY created_at, occurrence, step, key
            """
        ).map(Self.journalEntry)
    }

    func journalTargets(account: String, actions: Set<String>) async throws -> [String: Set<String>] {
        guard !actions.isEmpty else { return [:] }
        var result: [String: Set<String>] = [:]
        for row in try await rows(
            """
            SELECT DISTINCT action, target FROM \(unescaped: s).journal
            WHERE account = \(account) AND target IS NOT NULL AND action = ANY(\(actions.sorted()))
            """)
        {
            result[try row("action") as String, default: []].insert(try row("target"))
        }
        return result
    }

    // MARK: Dedup facts

    func dedupRecords(account: String, kind: DedupKind, target: String) async throws -> [DedupRecord] {
        try await rows(
            """
            SELECT * FROM \(unescaped: s).dedup WHERE account = \(account) AND kind = \(kind.rawValue)
            AND target = \(target) ORDER BY recorded_at, value
            """
        ).map { row in
            DedupRecord(
                account: try row("account"), kind: kind, target: try row("target"), value: try row("value"),
                recordedAt: try row.date("recorded_at"), journalKey: try row("journal_key"))
        }
    }

    func dedupTargets(account: String, kind: DedupKind, value: String?) async throws -> Set<String> {
        Set(
            try await rows(
                """
                SELECT DISTINCT target FROM \(unescaped: s).dedup WHERE account = \(account) AND kind = \(kind.rawValue)
                AND (\(value)::text IS NULL OR value = \(value))
                """
            ).map { try $0("target") })
    }

    // MARK: Content ledger

    func contentRecords(account: String, since: Date) async throws -> [ContentRecord] {
        try await rows(
            """
            SELECT * FROM \(unescaped: s).content_ledger WHERE account = \(account)
            AND recorded_at >= \(since.timeIntervalSince1970) ORDER BY recorded_at, id
            """
        ).map { row in
            ContentRecord(
                account: try row("account"), kind: try row("kind"), fingerprint: try row("fingerprint"),
                signature: try row("signature"), recordedAt: try row.date("recorded_at"),
                journalKey: try row("journal_key"), excerpt: try row("excerpt"))
        }
    }

    // MARK: Pauses and challenges

    func pauses(account: String) async throws -> [AccountPause] {
        try await rows("SELECT * FROM \(unescaped: s).pauses WHERE account = \(account) ORDER BY kind").map { row in
            AccountPause(
                account: try row("account"), kind: try row.decode(PauseKind.self, "kind"),
                until: try row.optionalDate("until"), reason: try row("reason"), createdAt: try row.date("created_at"))
        }
    }

    func challenge(code: String) async throws -> StoredChallenge? {
        try await rows("SELECT * FROM \(unescaped: s).challenges WHERE code = \(code)").first.map(Self.challenge)
    }

    func challenges(account: String, status: ChallengeStatus?, limit: Int) async throws -> [StoredChallenge] {
        try await rows(
            """
            SELECT * FROM \(unescaped: s).challenges WHERE account = \(account)
            AND (\(status?.rawValue)::text IS NULL OR status = \(status?.rawValue))
            ORDER BY created_at DESC, code LIMIT \(max(0, limit))
            """
        ).map(Self.challenge)
    }

    // MARK: Leases and health

    func lease(account: String) async throws -> Lease? {
        try await rows("SELECT * FROM \(unescaped: s).leases WHERE account = \(account) AND holder <> ''").first.map(
            Self.lease)
    }

    func leases() async throws -> [Lease] {
        try await rows("SELECT * FROM \(unescaped: s).leases WHERE holder <> '' ORDER BY account").map(Self.lease)
    }

    func holdsLease(account: String, holder: String, now: Date) async throws -> Bool {
        try await first(
            """
            SELECT EXISTS (SELECT 1 FROM \(unescaped: s).leases WHERE account = \(account) AND holder = \(holder)
            AND holder <> '' AND expires_at > \(now.timeIntervalSince1970))
            """
        ) { try $0.decode(Bool.self) } ?? false
    }

    func heartbeats() async throws -> [Heartbeat] {
        try await rows("SELECT * FROM \(unescaped: s).heartbeats ORDER BY holder").map { row in
            Heartbeat(
                holder: try row("holder"), startedAt: try row.date("started_at"), lastTick: try row.date("last_tick"),
                detail: try row("detail"))
        }
    }

    func knownAccounts() async throws -> [String] {
        try await rows(
            """
            SELECT account FROM \(unescaped: s).limiter_state UNION SELECT account FROM \(unescaped: s).limit_hints
            UNION SELECT account FROM \(unescaped: s).journal UNION SELECT account FROM \(unescaped: s).dedup
            UNION SELECT account FROM \(unescaped: s).pauses UNION SELECT account FROM \(unescaped: s).challenges
            UNION SELECT account FROM \(unescaped: s).leases ORDER BY 1
            """
        ).map { try $0("account") }
    }

    // MARK: Round trips

    func rows(_ query: PostgresQuery) async throws -> [Row] {
        let rows = try await handle.rows(query)
        return rows.map { Row(row: $0.makeRandomAccess(), raw: $0) }
    }

    /// The first column of the first row, if any.
    func first<T>(_ query: PostgresQuery, _ decode: (PostgresRow) throws -> T) async throws -> T? {
        guard let row = try await handle.rows(query).first else { return nil }
        do {
            return try decode(row)
        } catch {
            throw StorageError(
                .database, "the state database answered with a value Moltipass cannot read", underlying: error)
        }
    }

    /// The number a `WITH changed AS (… RETURNING 1) SELECT count(*) FROM changed` statement gives.
    func count(_ query: PostgresQuery) async throws -> Int {
        try await first(query) { try $0.decode(Int.self) } ?? 0
    }

    // MARK: Conversions

    static func journalEntry(_ row: Row) throws -> JournalEntry {
        JournalEntry(
            intent: JournalIntent(
                key: try row("key"), account: try row("account"), recipe: try row("recipe"), job: try row("job"),
                occurrence: try row.date("occurrence"), step: try row("step"), action: try row("action"),
                target: try row("target"), contentHash: try row("content_hash"), payload: try row("payload"),
                notBefore: try row.optionalDate("next_attempt_at")),
            state: try row.decode(JournalState.self, "state"), attempts: try row("attempts"),
            createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at"),
            sentAt: try row.optionalDate("sent_at"), remoteID: try row("remote_id"), lastError: try row("last_error"))
    }

    static func challenge(_ row: Row) throws -> StoredChallenge {
        StoredChallenge(
            code: try row("code"), account: try row("account"), text: try row("text"),
            expiresAt: try row.optionalDate("expires_at"), contentType: try row("content_type"),
            contentID: try row("content_id"), journalKey: try row("journal_key"), attempts: try row("attempts"),
            status: try row.decode(ChallengeStatus.self, "status"), createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"), answerPath: try row("answer_path"),
            instructions: try row("instructions"))
    }

    static func lease(_ row: Row) throws -> Lease {
        Lease(
            account: try row("account"), holder: try row("holder"), token: try row("token"),
            acquiredAt: try row.date("acquired_at"), expiresAt: try row.date("expires_at"))
    }
}

/// One row of a result, its columns by name (`try row("account")`), decoding errors as the
/// store's.
struct Row {
    let row: PostgresRandomAccessRow
    let raw: PostgresRow

    func callAsFunction<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        do {
            return try row[column].decode(T.self)
        } catch {
            throw StorageError(
                .database,
                "the state database holds a value Moltipass cannot read in column \(column): was the schema changed "
                    + "by hand?", underlying: error)
        }
    }

    /// A time column (seconds since 1970).
    func date(_ column: String) throws -> Date { Date(timeIntervalSince1970: try self(column, as: Double.self)) }

    func optionalDate(_ column: String) throws -> Date? {
        try self(column, as: Double?.self).map(Date.init(timeIntervalSince1970:))
    }

    /// A column holding one of an enum's raw values.
    func decode<T: RawRepresentable>(_ type: T.Type, _ column: String) throws -> T where T.RawValue == String {
        let raw: String = try self(column)
        guard let value = T(rawValue: raw) else {
            throw StorageError(.database, "state database holds an unknown \(T.self) '\(raw)'")
        }
        return value
    }
}
