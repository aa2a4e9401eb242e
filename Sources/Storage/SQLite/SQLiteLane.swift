import Foundation
import GRDB
import Synchronization

/// One SQLite connection, lent to one `read` or `transaction` body at a time, in arrival order.
///
/// A body may suspend between its calls, so its SQLite transaction stays open across several
/// GRDB accesses to the connection (which GRDB allows only with
/// `Configuration.allowsUnsafeTransactions`, set on the lane's connection). The gate keeps every
/// other body of this process off the connection until the transaction is committed or rolled
/// back; other processes are kept out by SQLite's own locks (the write lock of `BEGIN
/// IMMEDIATE`, the WAL snapshot of a read transaction).
final class SQLiteLane: Sendable {
    /// The connection; every access is `writeWithoutTransaction` (the lane opens and ends the
    /// transaction itself).
    let connection: any DatabaseWriter
    let gate: AsyncGate
    /// `.immediate` for transactions (the write lock at the first call, so a transaction never
    /// fails half-way for want of it), `.deferred` for reads (the snapshot at the first query).
    let kind: Database.TransactionKind
    /// The state file, for error messages; nil in memory.
    let path: String?

    init(connection: any DatabaseWriter, gate: AsyncGate = AsyncGate(), kind: Database.TransactionKind, path: String?) {
        self.connection = connection
        self.gate = gate
        self.kind = kind
        self.path = path
    }

    /// Lends the connection to `body` in one transaction: committed when `body` returns, rolled
    /// back when it throws or the commit fails (a cancelled task's commit does: GRDB refuses to
    /// start an access in a cancelled task).
    func lend<T>(_ body: (SQLiteHandle) async throws -> T) async throws -> T {
        await gate.acquire()
        defer { gate.release() }
        let handle = SQLiteHandle(lane: self)
        do {
            let value = try await body(handle)
            try await handle.commit()
            return value
        } catch {
            await handle.rollBack()
            throw error
        }
    }

    /// Runs `body` with the connection to itself (no transaction opened for it).
    func exclusive<T>(_ body: (any DatabaseWriter) async throws -> T) async throws -> T {
        await gate.acquire()
        defer { gate.release() }
        return try await body(connection)
    }
}

/// One body's use of a lane: the transaction begins with the body's first call, each call runs
/// its statements in one access to the connection, and the lane commits or rolls back at the end.
/// A handle kept past its body refuses every call.
final class SQLiteHandle: Sendable {
    private enum State {
        case idle, open, ended
    }

    private let lane: SQLiteLane
    private let state = Mutex(State.idle)

    init(lane: SQLiteLane) { self.lane = lane }

    /// Runs `work`'s statements on the lent connection, inside the body's transaction; database
    /// errors come out as `StorageError`s, as from the store itself.
    func run<T: Sendable>(_ work: @Sendable (SQLiteAccess) throws -> T) async throws -> T {
        try await SQLiteStateStore.mapping(path: lane.path) {
            try await lane.connection.writeWithoutTransaction { db in
                try self.enter(db)
                return try work(SQLiteAccess(db: db))
            }
        }
    }

    /// Begins the transaction at the first call; later calls check it is still open (SQLite
    /// rolls a transaction back by itself after some errors: a full disk, an I/O error).
    private func enter(_ db: Database) throws {
        try state.withLock { state in
            switch state {
            case .ended:
                throw StorageError(.database, "a state handle was used after its read or transaction ended")
            case .open:
                guard db.isInsideTransaction else { throw Self.abandoned }
            case .idle:
                // A transaction left by a rollback that failed (the lane holds the gate, so it
                // is nobody's now): end it, or this BEGIN would fail.
                if db.isInsideTransaction { try db.rollback() }
                try db.beginTransaction(lane.kind)
                state = .open
            }
        }
    }

    /// Commits the transaction, if a call began one.
    func commit() async throws {
        let begun = state.withLock { state in
            if state == .idle { state = .ended }
            return state == .open
        }
        guard begun else { return }
        try await SQLiteStateStore.mapping(path: lane.path) {
            try await lane.connection.writeWithoutTransaction { db in
                guard db.isInsideTransaction else { throw Self.abandoned }
                try db.commit()
                self.state.withLock { $0 = .ended }
            }
        }
    }

    /// Rolls the transaction back, if one is open, even in a cancelled task.
    func rollBack() async {
        let begun = state.withLock { state in
            defer { state = .ended }
            return state == .open
        }
        guard begun else { return }
        let connection = lane.connection
        // A task of its own, not cancelled with the caller's: GRDB does not start an access in a
        // cancelled task, and this one must run. A rollback that fails anyway leaves the
        // transaction to the next body's first call (`enter`).
        await Task { try? await connection.writeWithoutTransaction { db in try db.rollback() } }.value
    }

    /// SQLite rolled the transaction back after an error the body did not let through.
    private static let abandoned = StorageError(
        .database,
        "the state database abandoned a transaction after an earlier failure; none of it was written")
}
