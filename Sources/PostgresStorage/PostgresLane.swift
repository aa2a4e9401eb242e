import Foundation
import PostgresNIO
import Storage
import Synchronization

/// One connection of the store, lent to one `transaction` (or `read`) body at a time, in
/// arrival order (an `AsyncGate`).
///
/// The connection is made at the first use and made again when it broke (the server restarted,
/// a network hiccup while idle): a body never sees a dead connection before its first statement.
/// A connection left in an unknown state (a failed rollback) is dropped.
final class PostgresLane: Sendable {
    enum Kind: Sendable {
        /// Transactions: `BEGIN` (read committed; the statements' own conditions and row locks
        /// make each operation atomic, see docs/state.md).
        case write
        /// Reads: one snapshot from the first query to the end.
        case read

        var begin: PostgresQuery {
            switch self {
            case .write: "BEGIN"
            case .read: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
            }
        }
    }

    /// How long a statement waits for a lock another process holds (then `.busy`).
    static let lockTimeoutSeconds = 5
    /// How long a statement's answer may take before the store closes its connection (a lost
    /// network): a lock wait (`lockTimeoutSeconds`) and more, far less than TCP's own give-up.
    static let statementDeadline: Duration = .seconds(15)
    /// How long the server lets a session sit idle inside a transaction before ending it.
    static let idleInTransactionSeconds = 30

    private struct Current: ~Copyable {
        var connection: PostgresConnection?
        var closed = false
    }

    let gate = AsyncGate()
    let kind: Kind
    let connector: PostgresConnector
    private let current = Mutex(Current())

    init(kind: Kind, connector: PostgresConnector) {
        self.kind = kind
        self.connector = connector
    }

    var errors: PostgresErrors { connector.errors }

    /// Lends the connection to `body` in one transaction: committed when `body` returns, rolled
    /// back when it throws, when the commit is refused (a cancelled task's is), or when a
    /// statement failed (PostgreSQL ends a transaction at its first error).
    func lend<T>(_ body: (PostgresHandle) async throws -> T) async throws -> T {
        await gate.acquire()
        defer { gate.release() }
        try Task.checkCancellation()
        let handle = PostgresHandle(lane: self)
        do {
            let value = try await body(handle)
            try await handle.commit()
            return value
        } catch {
            await handle.rollBack()
            throw error
        }
    }

    /// The open connection, made now if there is none (only the gate's holder calls it).
    func connection() async throws -> PostgresConnection {
        let existing = try current.withLock { current in
            guard !current.closed else {
                throw StorageError(.database, "the PostgreSQL state store was used after it was closed")
            }
            return current.connection
        }
        if let existing, !existing.isClosed { return existing }
        let connection = try await connector.connect()
        current.withLock { $0.connection = connection }
        return connection
    }

    /// Drops `connection` (broken, or in a state nobody knows); the next use makes a new one.
    func discard(_ connection: PostgresConnection) {
        current.withLock { current in
            if current.connection === connection { current.connection = nil }
        }
        Self.closeLater(connection)
    }

    /// Closes `connection` without waiting, keeping it alive until it is closed (PostgresNIO
    /// requires a connection to be closed before it goes away).
    static func closeLater(_ connection: PostgresConnection) {
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// Waits for the body holding the connection, closes it; later uses fail.
    func close() async {
        await gate.acquire()
        defer { gate.release() }
        let connection = current.withLock { current in
            current.closed = true
            defer { current.connection = nil }
            return current.connection
        }
        try? await connection?.close()
    }

    deinit {
        if let connection = current.withLock({ $0.connection }) { Self.closeLater(connection) }
    }
}

/// One body's use of a lane: the transaction begins with the body's first statement, each call
/// is a round trip on the lent connection, and the lane commits or rolls back at the end. A
/// handle kept past its body refuses every call.
final class PostgresHandle: Sendable {
    private enum State: Sendable {
        case idle
        case open(PostgresConnection)
        /// A statement failed: PostgreSQL refuses the rest of the transaction.
        case failed(PostgresConnection)
        case ended
    }

    private let lane: PostgresLane
    private let state = Mutex(State.idle)

    init(lane: PostgresLane) { self.lane = lane }

    static let abandonedMessage =
        "a statement of this transaction failed earlier, so PostgreSQL ended the transaction; none of it was written"

    /// Runs `query` inside the body's transaction; its rows.
    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try Task.checkCancellation()
        let connection = try await transactionConnection()
        do {
            return try await connection.roundTrip(query, logger: lane.connector.logger)
        } catch {
            state.withLock { $0 = .failed(connection) }
            if Self.isConnectionLoss(error) { lane.discard(connection) }
            throw lane.errors.map(error)
        }
    }

    /// The connection of the open transaction; `BEGIN` on the first call (again on a new
    /// connection when the lane's broke unnoticed while idle: nothing was sent on it yet).
    private func transactionConnection() async throws -> PostgresConnection {
        switch state.withLock({ $0 }) {
        case .open(let connection): return connection
        case .failed: throw StorageError(.database, Self.abandonedMessage)
        case .ended: throw StorageError(.database, "a state handle was used after its read or transaction ended")
        case .idle: break
        }
        var connection = try await lane.connection()
        do {
            try await begin(on: connection)
        } catch  where Self.isConnectionLoss(error) {
            lane.discard(connection)
            connection = try await lane.connection()
            do { try await begin(on: connection) } catch { throw lane.errors.map(error) }
        } catch {
            throw lane.errors.map(error)
        }
        state.withLock { $0 = .open(connection) }
        return connection
    }

    private func begin(on connection: PostgresConnection) async throws {
        _ = try await connection.roundTrip(lane.kind.begin, logger: lane.connector.logger)
    }

    /// Commits the transaction, if a call began one. A cancelled task's commit is refused
    /// (`CancellationError`; the lane rolls back), as is one after a failed statement.
    func commit() async throws {
        let current = state.withLock { state in
            defer { if case .idle = state { state = .ended } }
            return state
        }
        switch current {
        case .idle, .ended: return
        case .failed: throw StorageError(.database, Self.abandonedMessage)
        case .open(let connection):
            try Task.checkCancellation()
            do {
                _ = try await connection.roundTrip("COMMIT", logger: lane.connector.logger)
                state.withLock { $0 = .ended }
            } catch {
                // Whatever failed, the server's transaction is over (or the connection is).
                state.withLock { $0 = .ended }
                if Self.isConnectionLoss(error) { lane.discard(connection) }
                throw lane.errors.map(error, .committing)
            }
        }
    }

    /// Rolls the transaction back, if one is open, even in a cancelled task; a connection that
    /// cannot roll back is dropped.
    func rollBack() async {
        let connection: PostgresConnection? = state.withLock { state in
            defer { state = .ended }
            return switch state {
            case .open(let connection), .failed(let connection): connection
            case .idle, .ended: nil
            }
        }
        guard let connection else { return }
        let lane = self.lane
        // A task of its own, not cancelled with the caller's.
        await Task {
            do {
                _ = try await connection.roundTrip("ROLLBACK", logger: lane.connector.logger)
            } catch {
                lane.discard(connection)
            }
        }.value
    }

    /// Whether `error` means the connection is gone (the statement never reached the server,
    /// or its answer never came back).
    static func isConnectionLoss(_ error: any Error) -> Bool {
        if error is PostgresUnanswered { return true }
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .connectionError: return true
        case .server:
            // Connection exceptions, and the server ending the session (shutdown, an idle
            // transaction's timeout).
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || state.hasPrefix("57P") || state == "25P03"
        default: return false
        }
    }
}
