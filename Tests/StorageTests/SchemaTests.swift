import Foundation
import GRDB
import MoltipassTesting
import Testing

@testable import Storage

@Suite struct SchemaTests {
    /// Opening a path that does not exist creates and migrates an empty store.
    @Test func migratesFromEmpty() async throws {
        let file = try StoreFile()
        defer { file.remove() }
        let store = try await file.open()
        let accounts = try await store.read { try await $0.knownAccounts() }
        let applied = try await store.writer.read { try Schema.migrator.appliedIdentifiers($0) }
        #expect(accounts.isEmpty)
        #expect(applied == ["v1", "v2", "v3", "v4", "v5", "v6"])
        #expect(applied.contains(Schema.currentVersion))
    }

    /// A v1 file's pauses and challenges survive the v2 migration (the pauses table is rebuilt
    /// for the `key_refused` kind; challenges gain `answer_path`, nil for old rows).
    @Test func v1FileMigratesToV2() async throws {
        let file = try StoreFile()
        defer { file.remove() }
        let queue = try DatabaseQueue(path: file.path)
        var v1Only = DatabaseMigrator()
        v1Only.registerMigration("v1") { db in try db.execute(sql: Schema.v1) }
        try v1Only.migrate(queue)
        try await queue.write { db in
            try db.execute(
                sql: "INSERT INTO pauses VALUES ('a', 'suspended', 100, 'suspended by the server', 50)")
            try db.execute(
                sql: """
                    INSERT INTO challenges (code, account, text, content_type, status, created_at, updated_at)
                    VALUES ('c1', 'a', 'two plus two', 'post', 'open', 1, 1)
                    """)
        }
        try queue.close()
        let store = try await file.open()
        let pauses = try await store.read { try await $0.pauses(account: "a") }
        #expect(pauses.map(\.kind) == [.suspended])
        #expect(pauses.first?.reason == "suspended by the server")
        let challenge = try await store.read { try await $0.challenge(code: "c1") }
        #expect(challenge?.text == "two plus two")
        #expect(challenge?.answerPath == nil)
        let refused = AccountPause(account: "a", kind: .keyRefused, until: nil, reason: "key refused", createdAt: .now)
        try await store.transaction { try await $0.setPause(refused) }
        #expect(try await store.read { try await $0.pauses(account: "a") }.count == 2)
    }

    /// A v3 file's dedup facts (each kind, with and without a journal key) survive the v4
    /// migration, which rebuilds the table for the answer kinds; the rebuilt table takes
    /// `reply`, `dm` and `dm_approve` facts, keeps the foreign key to the journal and its index,
    /// and still refuses a kind it does not list.
    @Test func v3FileMigratesToV4() async throws {
        let file = try StoreFile()
        defer { file.remove() }
        let queue = try DatabaseQueue(path: file.path)
        var v3Only = DatabaseMigrator()
        v3Only.registerMigration("v1") { db in try db.execute(sql: Schema.v1) }
        v3Only.registerMigration("v2") { db in try db.execute(sql: Schema.v2) }
        v3Only.registerMigration("v3") { db in try db.execute(sql: Schema.v3) }
        try v3Only.migrate(queue)
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO journal (key, account, recipe, job, occurrence, step, action, target, content_hash,
                        state, created_at, updated_at)
                    VALUES ('k1', 'a', 'r', 'j', 0, 0, 'comment', 'p1', 'h1', 'done', 1, 2)
                    """)
            try db.execute(
                sql: """
                    INSERT INTO dedup VALUES
                        ('a', 'post_vote', 'p1', 'up', 10, NULL),
                        ('a', 'comment_vote', 'c1', 'down', 11, NULL),
                        ('a', 'comment', 'p1', 'h1', 12, 'k1'),
                        ('a', 'comment', 'p1', 'h2', 13, NULL),
                        ('a', 'follow', 'bob', '', 14, NULL),
                        ('b', 'subscribe', 'general', '', 15, NULL)
                    """)
        }
        let before = try await queue.read { db in try Row.fetchAll(db, sql: "SELECT * FROM dedup ORDER BY rowid") }
        try queue.close()

        let store = try await file.open()
        let after = try await store.writer.read { db in try Row.fetchAll(db, sql: "SELECT * FROM dedup ORDER BY rowid")
        }
        #expect(after == before)
        #expect(
            try await store.read { try await $0.dedupRecords(account: "a", kind: .comment, target: "p1") }.count == 2)
        try await store.transaction { tx in
            try await tx.recordDedup(DedupRecord(account: "a", kind: .reply, target: "c9", recordedAt: T.at(1)))
            try await tx.recordDedup(DedupRecord(account: "a", kind: .reply, target: "post:p7", recordedAt: T.at(1)))
            try await tx.recordDedup(
                DedupRecord(account: "a", kind: .dm, target: "m3", recordedAt: T.at(2), journalKey: "k1"))
            try await tx.recordDedup(DedupRecord(account: "a", kind: .dmApprove, target: "conv1", recordedAt: T.at(3)))
        }
        let (replies, dm, approved) = try await store.read { reader in
            (
                try await reader.dedupTargets(account: "a", kind: .reply, value: nil),
                try await reader.dedupRecords(account: "a", kind: .dm, target: "m3"),
                try await reader.hasDedupRecord(account: "a", kind: .dmApprove, target: "conv1")
            )
        }
        #expect(replies == ["c9", "post:p7"])
        #expect(dm.map(\.journalKey) == ["k1"])
        #expect(approved)
        let (kinds, indexes, foreignKeys) = try await store.writer.read { db in
            (
                try String.fetchAll(db, sql: "SELECT DISTINCT kind FROM dedup ORDER BY kind"),
                try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'dedup' ORDER BY name"),
                try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(dedup)").map { $0["table"] as String? }
            )
        }
        #expect(kinds == ["comment", "comment_vote", "dm", "dm_approve", "follow", "post_vote", "reply", "subscribe"])
        #expect(indexes == ["dedup_by_journal", "sqlite_autoindex_dedup_1"])
        #expect(foreignKeys == ["journal"])
        let refused = await #expect(throws: DatabaseError.self) {
            try await store.writer.write { db in
                try db.execute(sql: "INSERT INTO dedup VALUES ('a', 'poke', 'x', '', 1, NULL)")
            }
        }
        #expect(refused?.resultCode == .SQLITE_CONSTRAINT)
    }

    /// A v4 file's live lease survives v5 (token 0, still held: its holder, a runner of the
    /// previous build mid-pass, keeps it); its holder renews it under token 0, and the next
    /// holder after it gets 1.
    @Test func v4FileMigratesToV5() async throws {
        let file = try StoreFile()
        defer { file.remove() }
        let queue = try DatabaseQueue(path: file.path)
        var v4Only = DatabaseMigrator()
        for (name, sql) in [("v1", Schema.v1), ("v2", Schema.v2), ("v3", Schema.v3), ("v4", Schema.v4)] {
            v4Only.registerMigration(name) { db in try db.execute(sql: sql) }
        }
        try v4Only.migrate(queue)
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO leases VALUES ('a', 'old-runner', 0, \(T.at(600).timeIntervalSince1970))")
        }
        try queue.close()

        let store = try await file.open()
        let held = try await store.acquireLease(account: "a", holder: "new-runner", now: T.at(1), ttl: 60)
        let renewed = try await store.renewLease(account: "a", holder: "old-runner", token: 0, now: T.at(2), ttl: 60)
        let next = try await store.acquireLease(account: "a", holder: "new-runner", now: T.at(62), ttl: 60)
        #expect(held == .heldBy(holder: "old-runner", until: T.at(600)))
        #expect(renewed?.token == 0 && renewed?.expiresAt == T.at(62))
        #expect(next.lease?.token == 1 && next.lease?.holder == "new-runner")
    }

    /// Data written before closing is there after reopening.
    @Test func reopenKeepsData() async throws {
        let file = try StoreFile()
        defer { file.remove() }
        do {
            let store = try await file.open()
            try await store.transaction { tx in
                try await tx.setScheduleCursor(recipe: "daily", job: "greet", lastFired: T.at(60), at: T.at(61))
                try await tx.setLimiterState(Data([1, 2, 3]), account: "alice", key: "limiter", at: T.at(61))
            }
            try store.close()
        }
        let store = try await file.open()
        let (cursor, ledger) = try await store.read {
            (
                try await $0.scheduleCursor(recipe: "daily", job: "greet"),
                try await $0.limiterState(account: "alice", key: "limiter")
            )
        }
        #expect(cursor == T.at(60))
        #expect(ledger == Data([1, 2, 3]))
    }

    /// A file carrying a migration this build does not know is refused with `.newerSchema`.
    @Test func newerSchemaRefused() async throws {
        let file = try StoreFile()
        defer { file.remove() }
        let store = try await file.open()
        try await store.writer.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
        }
        try store.close()
        let error = await #expect(throws: StorageError.self) { try await file.open() }
        #expect(error?.code == .newerSchema)
        #expect(error?.message.contains("newer Moltipass") == true)
        let snapshotError = #expect(throws: StorageError.self) { try SQLiteStateStore.snapshot(of: file.path) }
        #expect(snapshotError?.code == .newerSchema)
    }

    /// The state file, its WAL companions and its lock file are created readable by the owner only.
    @Test func filesAreCreatedPrivate() async throws {
        let file = try StoreFile()
        defer { file.remove() }
        let store = try await file.open()
        _ = try await store.recordIntent(.sample(), at: T.t0)
        #expect(try mode(file.path) == 0o600)
        #expect(try mode(file.path + "-wal") == 0o600)
        #expect(try mode(file.path + "-shm") == 0o600)
        #expect(try mode(file.path + ".lock") == 0o600)
    }

    /// Opening a store in a missing directory creates the directory owner-only.
    @Test func createsMissingDirectory() async throws {
        let directory = try TemporaryDirectory(prefix: "moltipass-storage")
        defer { directory.remove() }
        let path = directory.file("nested/state/state.sqlite").path
        _ = try await SQLiteStateStore.open(path: path)
        #expect(try mode(directory.file("nested/state").path) == 0o700)
        #expect(try mode(path) == 0o600)
    }

    /// The store runs with WAL, synchronous=FULL (2), foreign keys on and a busy timeout.
    @Test func pragmas() async throws {
        let file = try StoreFile()
        defer { file.remove() }
        let store = try await file.open()
        let (journal, synchronous, foreignKeys) = try await store.writer.write { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                try Int.fetchOne(db, sql: "PRAGMA foreign_keys")
            )
        }
        #expect(journal == "wal")
        #expect(synchronous == 2)
        #expect(foreignKeys == 1)
    }
}
