import FileSafety
import Foundation
import GRDB

/// The state store in one SQLite file (WAL, `synchronous=FULL`, foreign keys on, busy timeout).
///
/// Opening takes `<path>.lock` while it creates the file (mode 0600) and migrates it, so
/// processes opening a new file at once do not race the migration. A file migrated by a newer
/// build (a migration this build does not know) is refused with `.newerSchema`.
///
/// A `transaction` body gets the write connection in a `BEGIN IMMEDIATE` transaction; a
/// `read` body gets a read-only connection of its own in a read transaction (one WAL snapshot
/// from its first query to its end, while transactions commit beside it). Each connection is
/// lent to one body at a time, in arrival order (`SQLiteLane`). A body may suspend between its
/// calls; each call runs on the connection's GRDB queue, so store calls never block the
/// cooperative pool, even while another process holds the database (up to the busy timeout,
/// then `.busy`). `init` does block (opening, migrating, waiting for the lock); from async code
/// use `open(path:busyTimeout:)`.
///
/// In memory (a snapshot, `inMemory()`) there is one connection: reads and transactions share
/// its lane.
public final class SQLiteStateStore: StateStore {
    /// The database file, or nil for an in-memory store (a snapshot).
    public let path: String?
    let writer: any DatabaseWriter
    /// The write connection's lane (`BEGIN IMMEDIATE`).
    let writeLane: SQLiteLane
    /// The read connection's lane (`BEGIN DEFERRED`): a read-only connection of its own on a
    /// file, the write connection (and its gate) in memory.
    let readLane: SQLiteLane

    /// Opens (creating if needed) the state file at `path`. Blocks; see `open`.
    public init(path: String, busyTimeout: TimeInterval = 5) throws {
        self.path = path
        try StorageError.mappingFiles { try PrivateFile.createDirectory(for: path) }
        try Self.refuseDirectory(path)
        if FileManager.default.fileExists(atPath: path), !Self.isWritableLocation(path) {
            throw Self.readOnly(path: path)
        }
        let lock = try StorageError.mappingFiles {
            try FileLock.lock(path: FileLock.lockPath(for: path), timeout: busyTimeout)
        }
        defer { lock.unlock() }
        try StorageError.mappingFiles { try PrivateFile.create(path) }
        var configuration = Self.configuration(busyTimeout: busyTimeout)
        configuration.label = "moltipass-state"
        let pool = try Self.mapping(path: path) {
            let pool = try DatabasePool(path: path, configuration: configuration)
            // After GRDB's WAL set-up, which chooses NORMAL. The writer connection lives as long
            // as the pool, so this holds for every write.
            try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
            return pool
        }
        try Self.migrate(pool, source: path)
        var readerConfiguration = configuration
        readerConfiguration.readonly = true
        readerConfiguration.label = "moltipass-state-reader"
        let reader = try Self.mapping(path: path) { try DatabaseQueue(path: path, configuration: readerConfiguration) }
        writer = pool
        writeLane = SQLiteLane(connection: pool, kind: .immediate, path: path)
        readLane = SQLiteLane(connection: reader, kind: .deferred, path: path)
    }

    init(memory: DatabaseQueue) {
        path = nil
        writer = memory
        writeLane = SQLiteLane(connection: memory, kind: .immediate, path: nil)
        readLane = SQLiteLane(connection: memory, gate: writeLane.gate, kind: .deferred, path: nil)
    }

    deinit {
        // The read connection first: the write connection, closing last, checkpoints the WAL
        // into the file and removes it (a read-only connection cannot), so a state file copied
        // alone after a run holds everything.
        if readLane.connection !== writer { try? (readLane.connection as? DatabaseQueue)?.close() }
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

    public func read<T: Sendable>(_ body: @escaping @Sendable (any StateReader) async throws -> T) async throws -> T {
        try await Self.mapping(path: path) {
            try await readLane.lend { handle in try await body(SQLiteStateReader(handle: handle)) }
        }
    }

    public func transaction<T: Sendable>(
        _ body: @escaping @Sendable (any StateTransaction) async throws -> T
    ) async throws -> T {
        try await Self.mapping(path: path) {
            try await writeLane.lend { handle in try await body(SQLiteStateTransaction(handle: handle)) }
        }
    }

    /// A transaction on the calling thread, blocking it while other bodies hold the write
    /// connection, then for the synchronous `body` (tests race threads with it; never call it
    /// from a task).
    func blockingTransaction<T>(_ body: (SQLiteAccess) throws -> T) throws -> T {
        writeLane.gate.blockingAcquire()
        defer { writeLane.gate.release() }
        return try Self.mapping { try writer.write { db in try body(SQLiteAccess(db: db)) } }
    }

    /// Closes the connections; later calls fail. Not needed before exit.
    public func close() throws {
        try Self.mapping {
            if readLane.connection !== writer, let reader = readLane.connection as? DatabaseQueue {
                try reader.close()
            }
            if let pool = writer as? DatabasePool { try pool.close() }
            if let queue = writer as? DatabaseQueue { try queue.close() }
        }
    }

    // MARK: Setup

    static func configuration(busyTimeout: TimeInterval) -> Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        if busyTimeout > 0 { configuration.busyMode = .timeout(busyTimeout) }
        // A body's transaction stays open across the accesses of its calls (see SQLiteLane).
        // GRDB keeps its own pool readers safe regardless.
        configuration.allowsUnsafeTransactions = true
        // synchronous = FULL (set once the pool is open): in WAL mode every commit is fsynced,
        // so a recorded intent survives a power loss before the request leaves (NORMAL would
        // only survive a process crash).
        return configuration
    }

    /// Refuses a database a newer build migrated, then applies this build's migrations.
    static func migrate(_ writer: any DatabaseWriter, source: String) throws {
        let migrator = Schema.migrator
        try mapping(path: source == ":memory:" ? nil : source) {
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

    /// Runs `body`, turning database errors into `StorageError`s (about the file at `path`, when
    /// known); other errors pass unchanged.
    static func mapping<T>(path: String? = nil, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as DatabaseError { throw storageError(error, path: path) }
    }

    static func mapping<T>(path: String? = nil, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as DatabaseError { throw storageError(error, path: path) }
    }

    /// Refuses a state path that names a directory (SQLite would say "unable to open" or "disk I/O error").
    static func refuseDirectory(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw StorageError(.io, "the state file \(path) is a directory: give --state a file path")
        }
    }

    /// The state file (or its directory, or its file system) cannot be written.
    static func readOnly(path: String?, underlying: (any Error)? = nil) -> StorageError {
        StorageError(
            .readOnly,
            "\(path.map { "the state file \($0)" } ?? "the state file") cannot be written (the file, its directory "
                + "or its file system is read-only for this user); run, pause and resume write it (status and "
                + "plan only read): give --state a writable path or fix the permissions",
            underlying: underlying)
    }

    /// A database error in plain words, with what to check; SQLite's code and text stay in
    /// `underlying` (never printed).
    static func storageError(_ error: DatabaseError, path: String? = nil) -> StorageError {
        let file = path.map { "the state file \($0)" } ?? "the state file"
        return switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            StorageError(.busy, "the state database stayed locked by another process", underlying: error)
        case .SQLITE_READONLY:
            readOnly(path: path, underlying: error)
        case .SQLITE_CANTOPEN:
            StorageError(
                .io,
                "\(file) cannot be opened: check that its directory exists and that this user may read it "
                    + "(and, to run, write the file and its directory)",
                underlying: error)
        case .SQLITE_PERM, .SQLITE_AUTH:
            StorageError(.io, "access to \(file) was refused: check its permissions", underlying: error)
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            StorageError(
                .database, "\(file) is not a Moltipass state file, or it is damaged: give --state another file",
                underlying: error)
        case .SQLITE_FULL:
            StorageError(.io, "the disk holding \(file) is full", underlying: error)
        case .SQLITE_IOERR:
            StorageError(
                .io, "reading or writing \(file) failed (an I/O error of the disk or file system)", underlying: error)
        default:
            StorageError(.database, "state database: \(error.message ?? "failure")", underlying: error)
        }
    }
}
