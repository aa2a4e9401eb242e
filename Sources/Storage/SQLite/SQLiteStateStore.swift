import Foundation
import GRDB

/// The state store in one SQLite file (WAL, `synchronous=FULL`, foreign keys on, busy timeout).
///
/// Opening takes `<path>.lock` while it creates the file (mode 0600) and migrates it, so
/// processes opening a new file at once do not race the migration. A file migrated by a newer
/// build (a migration this build does not know) is refused with `.newerSchema`.
///
/// Store calls never block the cooperative pool: GRDB runs each closure on its own serial
/// queue. `init` does block (opening, migrating, waiting for the lock); from async code use
/// `open(path:busyTimeout:)`.
public final class SQLiteStateStore: StateStore {
    /// The database file, or nil for an in-memory store (a snapshot).
    public let path: String?
    let writer: any DatabaseWriter

    /// Opens (creating if needed) the state file at `path`. Blocks; see `open`.
    public init(path: String, busyTimeout: TimeInterval = 5) throws {
        self.path = path
        try PrivateFile.createDirectory(for: path)
        let lock = try FileLock.lock(path: FileLock.lockPath(for: path), timeout: busyTimeout)
        defer { lock.unlock() }
        try PrivateFile.create(path)
        var configuration = Self.configuration(busyTimeout: busyTimeout)
        configuration.label = "moltipass-state"
        let pool = try Self.mapping {
            let pool = try DatabasePool(path: path, configuration: configuration)
            // After GRDB's WAL set-up, which chooses NORMAL. The writer connection lives as long
            // as the pool, so this holds for every write.
            try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
            return pool
        }
        try Self.migrate(pool, source: path)
        writer = pool
    }

    init(memory: DatabaseQueue) {
        path = nil
        writer = memory
    }

    /// Opens the state file at `path` on a thread of its own.
    public static func open(path: String, busyTimeout: TimeInterval = 5) async throws -> SQLiteStateStore {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try SQLiteStateStore(path: path, busyTimeout: busyTimeout) })
            }
        }
    }

    /// An empty store in memory, migrated to the current schema.
    public static func inMemory() throws -> SQLiteStateStore {
        let queue = try mapping { try DatabaseQueue(configuration: configuration(busyTimeout: 0)) }
        try migrate(queue, source: ":memory:")
        return SQLiteStateStore(memory: queue)
    }

    /// The schema migration this build writes (for `status` and diagnostics).
    public static var schemaVersion: String { Schema.currentVersion }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any StateReader) throws -> T) async throws -> T {
        try await Self.mapping { try await writer.read { db in try body(SQLiteAccess(db: db)) } }
    }

    public func transaction<T: Sendable>(
        _ body: @escaping @Sendable (any StateTransaction) throws -> T
    ) async throws -> T {
        try await Self.mapping { try await writer.write { db in try body(SQLiteAccess(db: db)) } }
    }

    /// `transaction` on the calling thread, blocking it (tests race threads with it).
    func blockingTransaction<T>(_ body: (any StateTransaction) throws -> T) throws -> T {
        try Self.mapping { try writer.write { db in try body(SQLiteAccess(db: db)) } }
    }

    /// Closes the connections; later calls fail. Not needed before exit.
    public func close() throws {
        try Self.mapping {
            if let pool = writer as? DatabasePool { try pool.close() }
            if let queue = writer as? DatabaseQueue { try queue.close() }
        }
    }

    // MARK: Setup

    static func configuration(busyTimeout: TimeInterval) -> Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        if busyTimeout > 0 { configuration.busyMode = .timeout(busyTimeout) }
        // synchronous = FULL (set once the pool is open): in WAL mode every commit is fsynced,
        // so a recorded intent survives a power loss before the request leaves (NORMAL would
        // only survive a process crash).
        return configuration
    }

    /// Refuses a database a newer build migrated, then applies this build's migrations.
    static func migrate(_ writer: any DatabaseWriter, source: String) throws {
        let migrator = Schema.migrator
        try mapping {
            let (superseded, applied) = try writer.read { db in
                (try migrator.hasBeenSuperseded(db), try migrator.appliedIdentifiers(db))
            }
            if superseded {
                throw StorageError(
                    .newerSchema,
                    "\(source) was written by a newer Moltipass (schema \(applied.sorted().joined(separator: ", ")); "
                        + "this build knows up to \(Schema.currentVersion)): upgrade Moltipass or use another state file"
                )
            }
            try migrator.migrate(writer)
        }
    }

    // MARK: Errors

    /// Runs `body`, turning database errors into `StorageError`s; other errors pass unchanged.
    static func mapping<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as DatabaseError { throw storageError(error) }
    }

    static func mapping<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as DatabaseError { throw storageError(error) }
    }

    static func storageError(_ error: DatabaseError) -> StorageError {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            StorageError(.busy, "the state database stayed locked by another process", underlying: error)
        default:
            StorageError(.database, "state database: \(error.message ?? "\(error.resultCode)")", underlying: error)
        }
    }
}
