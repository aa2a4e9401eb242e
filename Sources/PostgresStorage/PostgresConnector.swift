import Foundation
import Logging
import PostgresNIO
import Storage
import Synchronization

/// Makes the store's connections: the URL's server, user, database and TLS mode, the password
/// read once at open, and the session settings every connection of the store gets.
struct PostgresConnector: Sendable {
    let location: PostgresLocation
    let configuration: PostgresConnection.Configuration
    let errors: PostgresErrors
    /// PostgresNIO's logger: the store's, never below `notice` (its debug lines show statements).
    let logger: Logger

    private static let ids = Atomic<Int>(0)

    init(location: PostgresLocation, password: String?, logger: Logger) throws {
        self.location = location
        errors = PostgresErrors(location: location)
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .notice)
        self.logger = quiet
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: password,
            database: location.database, tls: try Self.tls(location))
        configuration.options.connectTimeout = .seconds(10)
        self.configuration = configuration
    }

    /// A new connection with the store's session settings, up within `deadline` or given up.
    func connect(deadline: Duration = PostgresLane.statementDeadline) async throws -> PostgresConnection {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                configuration: configuration, id: Self.ids.add(1, ordering: .relaxed).newValue, logger: logger,
                deadline: deadline)
        } catch {
            throw errors.map(error, .connecting)
        }
        do {
            // A lock another process holds is waited for at most lockTimeoutSeconds (then
            // `.busy`, like SQLite's busy timeout). A session idle inside a transaction for
            // idleInTransactionSeconds is ended by the server: a process stopped or cut off
            // mid-transaction must not keep its locks (a lease row) from the other runners.
            _ = try await connection.roundTrip(
                """
                SELECT set_config('lock_timeout', \("\(PostgresLane.lockTimeoutSeconds)s"), false),
                    set_config('idle_in_transaction_session_timeout',
                        \("\(PostgresLane.idleInTransactionSeconds)s"), false),
                    set_config('application_name', 'moltipass', false)
                """, logger: logger
            )
        } catch {
            try? await connection.close()
            throw errors.map(error, .connecting)
        }
        return connection
    }

    private static func tls(_ location: PostgresLocation) throws -> PostgresConnection.Configuration.TLS {
        var unchecked = TLSConfiguration.makeClientConfiguration()
        unchecked.certificateVerification = .none
        do {
            return switch location.tls {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: unchecked))
            case .require: .require(try NIOSSLContext(configuration: unchecked))
            case .verifyFull: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        } catch {
            throw StorageError(
                .unavailable, "TLS for PostgreSQL at \(location.server) cannot be set up (the system's certificates)",
                underlying: error)
        }
    }
}
