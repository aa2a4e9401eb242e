import GRDB

/// The SQLite schema, as GRDB migrations. A migration, once released, is never edited: a
/// change is a new migration appended here (and a row in docs/state.md).
enum Schema {
    /// The identifiers this build knows, in order. A file holding any other is from a newer build.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in try db.execute(sql: v1) }
        migrator.registerMigration("v2") { db in try db.execute(sql: v2) }
        migrator.registerMigration("v3") { db in try db.execute(sql: v3) }
        migrator.registerMigration("v4") { db in try db.execute(sql: v4) }
        migrator.registerMigration("v5") { db in try db.execute(sql: v5) }
        migrator.registerMigration("v6") { db in try db.execute(sql: v6) }
        return migrator
    }

    /// The newest migration this build applies.
    static let currentVersion = "v6"

    /// v6: a challenge's instructions, which say how its answer is written (issue 33).
    static let v6 = """
        ALTER TABLE challenges ADD COLUMN instructions TEXT;
        """

    /// v5: the lease's fencing token (issue 23). Existing leases start at 0, so whoever takes one
    /// next gets 1; a released lease is kept as a row with an empty holder (its token counts on).
    static let v5 = """
        ALTER TABLE leases ADD COLUMN token INTEGER NOT NULL DEFAULT 0;
        """

    /// v4: the dedup kinds of answers (issue 22): `reply` (the trigger answered: a comment id, or
    /// `post:ID` for a post that mentions the agent), `dm` (the direct message answered) and
    /// `dm_approve` (the DM request approved). SQLite cannot change a CHECK in place: the dedup
    /// table is rebuilt, every row kept, and its index made again.
    static let v4 = """
        CREATE TABLE dedup_v4 (
            account TEXT NOT NULL,
            kind TEXT NOT NULL
                CHECK (kind IN (
                    'post_vote', 'comment_vote', 'comment', 'follow', 'subscribe', 'reply', 'dm', 'dm_approve'
                )),
            target TEXT NOT NULL,
            value TEXT NOT NULL DEFAULT '',
            recorded_at REAL NOT NULL,
            journal_key TEXT REFERENCES journal (key) ON DELETE SET NULL,
            PRIMARY KEY (account, kind, target, value)
        );
        INSERT INTO dedup_v4 SELECT account, kind, target, value, recorded_at, journal_key FROM dedup;
        DROP TABLE dedup;
        ALTER TABLE dedup_v4 RENAME TO dedup;
        CREATE INDEX dedup_by_journal ON dedup (journal_key);
        """

    /// v3: the content ledger of the duplicate guard (what each agent posted and commented,
    /// fingerprinted; `signature` is a bottom-64 sketch of its word 3-shingles, in hex).
    static let v3 = """
        CREATE TABLE content_ledger (
            account TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('post', 'comment')),
            fingerprint TEXT NOT NULL,
            signature TEXT NOT NULL DEFAULT '',
            recorded_at REAL NOT NULL,
            journal_key TEXT,
            excerpt TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX content_by_account ON content_ledger (account, recorded_at);
        """

    /// v2: the `key_refused` pause (a key the server refuses is a stored pause that `status`
    /// shows and health fails on), and where a challenge is answered (`answer_path`: servers
    /// other than moltbook.com take answers at other routes). SQLite cannot change a CHECK in
    /// place: the pauses table is rebuilt.
    static let v2 = """
        CREATE TABLE pauses_v2 (
            account TEXT NOT NULL,
            kind TEXT NOT NULL
                CHECK (kind IN ('challenge_failed', 'suspended', 'auth_breaker', 'key_refused', 'manual')),
            until REAL,
            reason TEXT NOT NULL,
            created_at REAL NOT NULL,
            PRIMARY KEY (account, kind)
        );
        INSERT INTO pauses_v2 SELECT account, kind, until, reason, created_at FROM pauses;
        DROP TABLE pauses;
        ALTER TABLE pauses_v2 RENAME TO pauses;
        ALTER TABLE challenges ADD COLUMN answer_path TEXT;
        """

    /// Times are REAL seconds since 1970 (UTC), readable with `datetime(x, 'unixepoch')`.
    static let v1 = """
        CREATE TABLE limiter_state (
            account TEXT NOT NULL,
            key TEXT NOT NULL,
            state BLOB NOT NULL,
            updated_at REAL NOT NULL,
            PRIMARY KEY (account, key)
        );
        CREATE TABLE limit_hints (
            account TEXT NOT NULL,
            limit_class TEXT NOT NULL,
            not_before REAL NOT NULL,
            source TEXT NOT NULL,
            detail TEXT NOT NULL DEFAULT '',
            recorded_at REAL NOT NULL,
            PRIMARY KEY (account, limit_class)
        );
        CREATE TABLE schedule_cursors (
            recipe TEXT NOT NULL,
            job TEXT NOT NULL,
            last_fired REAL NOT NULL,
            updated_at REAL NOT NULL,
            PRIMARY KEY (recipe, job)
        );
        CREATE TABLE queue_positions (
            recipe TEXT NOT NULL,
            queue TEXT NOT NULL,
            next_index INTEGER NOT NULL CHECK (next_index >= 0),
            last_item TEXT,
            updated_at REAL NOT NULL,
            PRIMARY KEY (recipe, queue)
        );
        CREATE TABLE journal (
            key TEXT NOT NULL PRIMARY KEY,
            account TEXT NOT NULL,
            recipe TEXT NOT NULL,
            job TEXT NOT NULL,
            occurrence REAL NOT NULL,
            step INTEGER NOT NULL,
            action TEXT NOT NULL,
            target TEXT,
            content_hash TEXT NOT NULL,
            payload BLOB,
            state TEXT NOT NULL CHECK (state IN ('intent', 'sent', 'done', 'failed', 'uncertain')),
            attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            sent_at REAL,
            remote_id TEXT,
            last_error TEXT,
            next_attempt_at REAL
        );
        CREATE INDEX journal_by_account_state ON journal (account, state, created_at);
        CREATE TABLE dedup (
            account TEXT NOT NULL,
            kind TEXT NOT NULL
                CHECK (kind IN ('post_vote', 'comment_vote', 'comment', 'follow', 'subscribe')),
            target TEXT NOT NULL,
            value TEXT NOT NULL DEFAULT '',
            recorded_at REAL NOT NULL,
            journal_key TEXT REFERENCES journal (key) ON DELETE SET NULL,
            PRIMARY KEY (account, kind, target, value)
        );
        CREATE INDEX dedup_by_journal ON dedup (journal_key);
        CREATE TABLE pauses (
            account TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('challenge_failed', 'suspended', 'auth_breaker', 'manual')),
            until REAL,
            reason TEXT NOT NULL,
            created_at REAL NOT NULL,
            PRIMARY KEY (account, kind)
        );
        CREATE TABLE challenges (
            code TEXT NOT NULL PRIMARY KEY,
            account TEXT NOT NULL,
            text TEXT NOT NULL,
            expires_at REAL,
            content_type TEXT NOT NULL,
            content_id TEXT,
            journal_key TEXT REFERENCES journal (key) ON DELETE SET NULL,
            attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
            status TEXT NOT NULL CHECK (status IN ('open', 'solved', 'failed', 'expired')),
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE INDEX challenges_by_account ON challenges (account, status, created_at);
        CREATE INDEX challenges_by_journal ON challenges (journal_key);
        CREATE TABLE leases (
            account TEXT NOT NULL PRIMARY KEY,
            holder TEXT NOT NULL,
            acquired_at REAL NOT NULL,
            expires_at REAL NOT NULL
        );
        CREATE TABLE heartbeats (
            holder TEXT NOT NULL PRIMARY KEY,
            started_at REAL NOT NULL,
            last_tick REAL NOT NULL,
            detail TEXT NOT NULL DEFAULT ''
        );
        """
}
