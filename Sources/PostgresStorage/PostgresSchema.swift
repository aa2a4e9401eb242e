import Foundation
import PostgresNIO
import Storage

/// The PostgreSQL schema, as versioned migrations (the same tables and columns as the SQLite
/// store's `Schema`, at its v5). A migration, once released, is never edited: a change is a new
/// migration appended here (and a row in docs/state.md).
///
/// Every table lives in the URL's schema. Text columns are `COLLATE "C"`: ordering ties (keys,
/// classes, holders) sort by bytes as SQLite's do, whatever the database's locale, and no
/// index depends on the C library's collation. Times are `double precision` seconds since
/// 1970, the same numbers SQLite's REAL columns hold (a copy round-trips exactly); blobs are
/// `bytea`. `content_ledger.id` stands for SQLite's rowid (insertion order for ties).
enum PostgresSchema {
    /// How long a statement of a schema migration may take (changing a large table can take a
    /// while; the lane's statements get `PostgresLane.statementDeadline`).
    static let migrationDeadline: Duration = .seconds(600)

    /// The identifiers this build knows, in order. A database holding any other is from a newer build.
    static func migrations(_ s: String) -> [(version: String, statements: [String])] {
        [("v1", v1(s)), ("v2", v2(s))]
    }

    /// The newest migration this build applies.
    static let currentVersion = "v2"

    /// v2 (SQLite's v6): a challenge's instructions, which say how its answer is written (issue 33).
    static func v2(_ s: String) -> [String] {
        ["ALTER TABLE \(s).challenges ADD COLUMN instructions TEXT COLLATE \"C\""]
    }

    /// `pg_advisory_xact_lock(key, hashtext(schema))`: the migrations of one schema run one at a time.
    static let lockKey: Int32 = 0x4D4C_5053  // "MLPS"

    /// v1 (issue 23): everything SQLite's v1 to v5 hold.
    static func v1(_ s: String) -> [String] {
        let text = "TEXT COLLATE \"C\" NOT NULL"
        let time = "DOUBLE PRECISION NOT NULL"
        return [
            """
            CREATE TABLE \(s).limiter_state (
                account \(text), key \(text), state BYTEA NOT NULL, updated_at \(time),
                PRIMARY KEY (account, key))
            """,
            """
            CREATE TABLE \(s).limit_hints (
                account \(text), limit_class \(text), not_before \(time), source \(text),
                detail \(text) DEFAULT '', recorded_at \(time),
                PRIMARY KEY (account, limit_class))
            """,
            """
            CREATE TABLE \(s).schedule_cursors (
                recipe \(text), job \(text), last_fired \(time), updated_at \(time),
                PRIMARY KEY (recipe, job))
            """,
            """
            CREATE TABLE \(s).queue_positions (
                recipe \(text), queue \(text), next_index BIGINT NOT NULL CHECK (next_index >= 0),
                last_item TEXT COLLATE "C", updated_at \(time),
                PRIMARY KEY (recipe, queue))
            """,
            """
            CREATE TABLE \(s).journal (
                key \(text) PRIMARY KEY, account \(text), recipe \(text), job \(text),
                occurrence \(time), step BIGINT NOT NULL, action \(text), target TEXT COLLATE "C",
                content_hash \(text), payload BYTEA,
                state \(text) CHECK (state IN ('intent', 'sent', 'done', 'failed', 'uncertain')),
                attempts BIGINT NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                created_at \(time), updated_at \(time), sent_at DOUBLE PRECISION,
                remote_id TEXT COLLATE "C", last_error TEXT COLLATE "C", next_attempt_at DOUBLE PRECISION)
            """,
            "CREATE INDEX journal_by_account_state ON \(s).journal (account, state, created_at)",
            """
            CREATE TABLE \(s).dedup (
                account \(text),
                kind \(text) CHECK (kind IN (
                    'post_vote', 'comment_vote', 'comment', 'follow', 'subscribe', 'reply', 'dm', 'dm_approve')),
                target \(text), value \(text) DEFAULT '', recorded_at \(time),
                journal_key TEXT COLLATE "C" REFERENCES \(s).journal (key) ON DELETE SET NULL,
                PRIMARY KEY (account, kind, target, value))
            """,
            "CREATE INDEX dedup_by_journal ON \(s).dedup (journal_key)",
            """
            CREATE TABLE \(s).pauses (
                account \(text),
                kind \(text) CHECK (kind IN ('challenge_failed', 'suspended', 'auth_breaker', 'key_refused', 'manual')),
                until DOUBLE PRECISION, reason \(text), created_at \(time),
                PRIMARY KEY (account, kind))
            """,
            """
            CREATE TABLE \(s).content_ledger (
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                account \(text), kind \(text) CHECK (kind IN ('post', 'comment')), fingerprint \(text),
                signature \(text) DEFAULT '', recorded_at \(time), journal_key TEXT COLLATE "C",
                excerpt \(text) DEFAULT '')
            """,
            "CREATE INDEX content_by_account ON \(s).content_ledger (account, recorded_at)",
            """
            CREATE TABLE \(s).challenges (
                code \(text) PRIMARY KEY, account \(text), text \(text), expires_at DOUBLE PRECISION,
                content_type \(text), content_id TEXT COLLATE "C",
                journal_key TEXT COLLATE "C" REFERENCES \(s).journal (key) ON DELETE SET NULL,
                attempts BIGINT NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                status \(text) CHECK (status IN ('open', 'solved', 'failed', 'expired')),
                created_at \(time), updated_at \(time), answer_path TEXT COLLATE "C")
            """,
            "CREATE INDEX challenges_by_account ON \(s).challenges (account, status, created_at)",
            "CREATE INDEX challenges_by_journal ON \(s).challenges (journal_key)",
            """
            CREATE TABLE \(s).leases (
                account \(text) PRIMARY KEY, holder \(text), acquired_at \(time), expires_at \(time),
                token BIGINT NOT NULL DEFAULT 0)
            """,
            """
            CREATE TABLE \(s).heartbeats (
                holder \(text) PRIMARY KEY, started_at \(time), last_tick \(time), detail \(text) DEFAULT '')
            """,
        ]
    }

    /// Creates the schema if needed, refuses a database a newer build migrated, and applies this
    /// build's missing migrations: one transaction holding the schema's advisory lock, so any
    /// number of processes opening at once migrate once.
    static func migrate(_ connection: PostgresConnection, connector: PostgresConnector) async throws {
        let location = connector.location
        let s = quoted(location.schema)
        let logger = connector.logger
        _ = try await connection.roundTrip("BEGIN", logger: logger, deadline: migrationDeadline)
        do {
            // Runners starting together wait for the one that migrates (the advisory lock below),
            // however long its migration takes on a busy server: not the session's lock_timeout.
            _ = try await connection.roundTrip(
                PostgresQuery(unsafeSQL: "SET LOCAL lock_timeout = '\(migrationDeadline.components.seconds)s'"),
                logger: logger, deadline: migrationDeadline)
            _ = try await connection.roundTrip(
                "SELECT pg_advisory_xact_lock(\(lockKey), hashtext(\(location.schema)))", logger: logger,
                deadline: migrationDeadline
            )
            let encoding = try await connection.roundTrip(
                "SHOW server_encoding", logger: logger, deadline: migrationDeadline
            )
            .first?.decode(String.self)
            guard encoding == "UTF8" else {
                throw StorageError(
                    .database,
                    "the database \(location.database) at \(location.server) stores text as "
                        + "\(encoding ?? "an unknown encoding"); Moltipass needs UTF8: create the database with "
                        + "ENCODING 'UTF8'")
            }
            let exists = try await connection.roundTrip(
                "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = \(location.schema))", logger: logger,
                deadline: migrationDeadline
            ).first?.decode(Bool.self)
            if exists != true {
                _ = try await connection.roundTrip(
                    "CREATE SCHEMA \(unescaped: s)", logger: logger, deadline: migrationDeadline)
            }
            _ = try await connection.roundTrip(
                """
                CREATE TABLE IF NOT EXISTS \(unescaped: s).schema_migrations (
                    version TEXT COLLATE "C" PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """, logger: logger, deadline: migrationDeadline
            )
            let applied = Set(
                try await connection.roundTrip(
                    "SELECT version FROM \(unescaped: s).schema_migrations", logger: logger, deadline: migrationDeadline
                ).map { try $0.decode(String.self) })
            let known = migrations(s)
            let unknown = applied.subtracting(known.map(\.version))
            guard unknown.isEmpty else {
                throw StorageError(
                    .newerSchema,
                    "the PostgreSQL state \(location) was written by a newer Moltipass (schema "
                        + "\(applied.sorted().joined(separator: ", ")); this build knows up to \(currentVersion)): "
                        + "upgrade Moltipass or use another schema")
            }
            for migration in known where !applied.contains(migration.version) {
                for statement in migration.statements {
                    _ = try await connection.roundTrip(
                        PostgresQuery(unsafeSQL: statement), logger: logger, deadline: migrationDeadline)
                }
                _ = try await connection.roundTrip(
                    "INSERT INTO \(unescaped: s).schema_migrations (version) VALUES (\(migration.version))",
                    logger: logger, deadline: migrationDeadline
                )
            }
            _ = try await connection.roundTrip("COMMIT", logger: logger, deadline: migrationDeadline)
        } catch {
            _ = try? await connection.roundTrip("ROLLBACK", logger: logger, deadline: migrationDeadline)
            throw error
        }
    }

    /// `name` as a quoted identifier (the URL's schema is a plain identifier already).
    static func quoted(_ name: String) -> String { "\"\(name.replacingOccurrences(of: "\"", with: "\"\""))\"" }
}
