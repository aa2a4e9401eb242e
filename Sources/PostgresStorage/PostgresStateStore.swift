import Foundation
import Logging
import PostgresNIO
import Storage

/// The state store on a PostgreSQL server (issue 23): the state of many runners on many hosts,
/// the same tables and the same semantics as `SQLiteStateStore` (docs/state.md).
///
/// Opening reads the URL (`PostgresLocation`: the password only ever from a file), connects, and
/// migrates the URL's schema under an advisory lock (a schema migrated by a newer build is
/// refused with `.newerSchema`). A `transaction` body gets the store's write connection in a
/// `BEGIN … COMMIT` transaction; a `read` body gets a second connection in a `REPEATABLE READ
/// READ ONLY` transaction (one snapshot from its first query to its end). Each connection is
/// lent to one body at a time, in arrival order (`PostgresLane`), so one store's transactions
/// run one at a time; other processes are kept apart by the statements themselves (conditional
/// updates, upserts, the row lock a lease update holds until commit). A body may suspend between
/// its calls; each call is one round trip. A cancelled task's calls and commit throw
/// `CancellationError`, and its transaction is rolled back.
///
/// Errors are `StorageError`s in plain words; PostgresNIO's own errors stay in `underlying`.
public final class PostgresStateStore: StateStore {
    public let location: PostgresLocation
    let writeLane: PostgresLane
    let readLane: PostgresLane
    /// The schema, quoted, for statements.
    let schema: String

    private init(location: PostgresLocation, connector: PostgresConnector) {
        self.location = location
        schema = PostgresSchema.quoted(location.schema)
        writeLane = PostgresLane(kind: .write, connector: connector)
        readLane = PostgresLane(kind: .read, connector: connector)
    }

    /// Opens the state at `url`, creating and migrating its schema when needed.
    ///
    /// - Parameters:
    ///   - url: `postgres://USER@HOST:PORT/DATABASE?schema=NAME&sslmode=MODE&password_file=PATH`.
    ///   - passwordFile: the password's file when the URL names none (`MOLTIPASS_STATE_PASSWORD_FILE`).
    ///   - logger: for the store's own events; PostgresNIO logs to it from `notice` up.
    public static func open(
        url: String, passwordFile: String? = nil, logger: Logger = Logger(label: "moltipass.state")
    ) async throws -> PostgresStateStore {
        let location = try PostgresLocation(url: url, passwordFile: passwordFile)
        let connector = try PostgresConnector(location: location, password: try location.password(), logger: logger)
        let store = PostgresStateStore(location: location, connector: connector)
        do {
            try await store.writeLane.withConnection { connection in
                try await PostgresSchema.migrate(connection, connector: connector)
            }
        } catch {
            await store.close()
            throw error
        }
        logger.debug("opened the PostgreSQL state", metadata: ["state": "\(location)"])
        return store
    }

    /// The schema migration this build writes (for `status` and diagnostics).
    public static var schemaVersion: String { PostgresSchema.currentVersion }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any StateReader) async throws -> T) async throws -> T {
        try await readLane.lend { handle in try await body(PostgresAccess(handle: handle, s: schema)) }
    }

    public func transaction<T: Sendable>(
        _ body: @escaping @Sendable (any StateTransaction) async throws -> T
    ) async throws -> T {
        try await writeLane.lend { handle in try await body(PostgresAccess(handle: handle, s: schema)) }
    }

    /// Closes the connections, after the bodies holding them; later calls fail.
    public func close() async {
        await readLane.close()
        await writeLane.close()
    }

    /// Drops the schema and every table in it (tests: each uses a schema of its own).
    static func dropSchema(url: String, passwordFile: String?) async throws {
        let location = try PostgresLocation(url: url, passwordFile: passwordFile)
        let connector = try PostgresConnector(
            location: location, password: try location.password(), logger: Logger(label: "moltipass.state"))
        let connection = try await connector.connect()
        do {
            _ = try await connection.roundTrip(
                PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(PostgresSchema.quoted(location.schema)) CASCADE"),
                logger: connector.logger
            )
            try? await connection.close()
        } catch {
            try? await connection.close()
            throw connector.errors.map(error)
        }
    }
}

extension PostgresLane {
    /// Runs `body` with the lane's connection to itself, outside any body's transaction (opening).
    func withConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        await gate.acquire()
        defer { gate.release() }
        let connection = try await connection()
        do {
            return try await body(connection)
        } catch {
            if PostgresHandle.isConnectionLoss(error) { discard(connection) }
            throw errors.map(error)
        }
    }
}

extension PostgresStateStore {
    /// The schema migrations applied to the store's schema, sorted.
    public func appliedMigrations() async throws -> [String] {
        try await writeLane.withConnection { connection in
            try await connection.roundTrip(
                "SELECT version FROM \(unescaped: schema).schema_migrations ORDER BY version",
                logger: writeLane.connector.logger
            ).map { try $0.decode(String.self) }
        }
    }

    /// Runs one statement outside the protocol (tests: a newer schema's row, ending a session, a
    /// statement that outlasts `deadline`).
    func execute(_ sql: String, deadline: Duration = PostgresLane.statementDeadline) async throws {
        try await writeLane.withConnection { connection in
            _ = try await connection.roundTrip(
                PostgresQuery(unsafeSQL: sql), logger: writeLane.connector.logger, deadline: deadline)
        }
    }

    /// The server process of the write connection (tests end it to see the store connect again).
    func writeConnectionProcess() async throws -> Int32 {
        try await writeLane.withConnection { connection in
            try await connection.roundTrip("SELECT pg_backend_pid()", logger: writeLane.connector.logger)
                .first!.decode(Int32.self)
        }
    }
}
