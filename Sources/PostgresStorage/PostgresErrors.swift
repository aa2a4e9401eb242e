import Foundation
import PostgresNIO
import Storage

/// PostgresNIO's errors in plain words, as `StorageError`s: what went wrong with which server,
/// and what to check. The server's own message, the failed query and its values stay in
/// `underlying` (never printed); no message holds a password.
struct PostgresErrors: Sendable {
    let location: PostgresLocation

    /// When in the store's life the error happened (the words differ).
    enum Moment {
        case connecting, statement, committing
    }

    /// `error` as the store throws it: a `StorageError`, or `CancellationError` unchanged.
    func map(_ error: any Error, _ moment: Moment = .statement) -> any Error {
        switch error {
        case is StorageError, is CancellationError: error
        case let error as PSQLError: map(error, moment)
        case let error as PostgresUnanswered: unanswered(error, moment)
        case let error as PostgresDecodingError:
            StorageError(
                .database,
                "the state database holds a value Moltipass cannot read in column \(error.columnName) of "
                    + "schema \(location.schema): was the schema changed by hand?",
                underlying: error)
        default: unreachable(error, moment)
        }
    }

    private func map(_ error: PSQLError, _ moment: Moment) -> StorageError {
        let server = "PostgreSQL at \(location.server)"
        switch error.code {
        case .server:
            return serverError(error, moment)
        case .sslUnsupported:
            return StorageError(
                .unavailable,
                "\(server) does not offer TLS, and sslmode=\(location.tls.rawValue) asks for it: "
                    + "enable TLS on the server or use sslmode=disable on a trusted network",
                underlying: error)
        case .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
            return StorageError(
                .unavailable,
                "TLS with \(server) failed (its certificate, or the handshake): check the server's certificate "
                    + "and sslmode (verify-full checks the certificate; require only encrypts)",
                underlying: error)
        case .authMechanismRequiresPassword:
            return StorageError(
                .unavailable,
                "\(server) asks for a password for user \(location.user), and none was given: name a file "
                    + "holding it with ?password_file=PATH in the URL or MOLTIPASS_STATE_PASSWORD_FILE",
                underlying: error)
        case .unsupportedAuthMechanism, .saslError:
            return StorageError(
                .unavailable,
                "\(server) asks user \(location.user) to log in in a way Moltipass does not support: "
                    + "use password authentication (scram-sha-256 or md5) for it in pg_hba.conf",
                underlying: error)
        case .connectionError where moment == .connecting:
            return unreachable(error.underlying ?? error, moment, cause: error)
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .connectionError:
            return lost(error, moment)
        case .queryCancelled:
            return StorageError(
                .busy, "\(server) cancelled a statement of the state store; nothing of its transaction was written",
                underlying: error)
        default:
            return StorageError(
                .database,
                "\(server) answered the state store in a way Moltipass does not understand (\(error.code)); "
                    + "nothing of the transaction was written",
                underlying: error)
        }
    }

    /// An error the server reported, by its SQLSTATE.
    private func serverError(_ error: PSQLError, _ moment: Moment) -> StorageError {
        let state = error.serverInfo?[.sqlState] ?? ""
        let server = "PostgreSQL at \(location.server)"
        let (code, message): (StorageError.Code, String) =
            switch state {
            case "28P01":
                (
                    .unavailable,
                    location.passwordFile.map {
                        "\(server) refused the password of user \(location.user) (from \($0)): check the file "
                            + "and the user's password on the server"
                    }
                        ?? "\(server) refused the login of user \(location.user) without a password: name a file "
                        + "holding it with ?password_file=PATH in the URL or MOLTIPASS_STATE_PASSWORD_FILE"
                )
            case "28000":
                (
                    .unavailable,
                    "\(server) does not let user \(location.user) log in to database \(location.database) from "
                        + "this host: check the role and the server's pg_hba.conf"
                )
            case "3D000":
                (
                    .unavailable,
                    "\(server) has no database \(location.database): create it (createdb -O \(location.user) "
                        + "\(location.database)) or fix the URL"
                )
            case "53300":
                (.unavailable, "\(server) has no free connection: raise its max_connections or run fewer processes")
            case "57P01", "57P02", "57P03":
                (.unavailable, "\(server) is shutting down or starting up; nothing of the transaction was written")
            case "42501":
                (
                    .database,
                    "user \(location.user) lacks a privilege on the state schema \(location.schema) of "
                        + "\(location.database) (permission denied): grant it, or name another schema with ?schema="
                )
            case "25006":
                (
                    .readOnly,
                    "\(server) takes no writes (a standby, or default_transaction_read_only): run, pause and resume "
                        + "write the state; give --state the primary server"
                )
            case "40001", "40P01":
                (
                    .busy,
                    "a transaction of the state store conflicted with another process's (a deadlock or serialization "
                        + "failure); nothing of it was written"
                )
            case "55P03":
                (
                    .busy,
                    "the state database stayed locked by another process for more than "
                        + "\(PostgresLane.lockTimeoutSeconds) s; nothing of the transaction was written"
                )
            case "57014":
                (.busy, "\(server) cancelled a statement of the state store; nothing of its transaction was written")
            case "22021", "22P05":
                (
                    .database,
                    "a text value holds a character PostgreSQL cannot store (a NUL character, or one outside "
                        + "the database's encoding); nothing of the transaction was written"
                )
            case "53100":
                (.io, "the disk of \(server) is full; nothing of the transaction was written")
            case "25P02":
                (.database, PostgresHandle.abandonedMessage)
            case "42P01", "42703", "3F000":
                (
                    .database,
                    "the state schema \(location.schema) in \(location.database) is missing a table or column: "
                        + "was it changed or dropped by hand?"
                )
            case let state where state.hasPrefix("23"):
                (
                    .database,
                    "the state database refused a change that breaks its rule "
                        + "\(error.serverInfo?[.constraintName] ?? state) (table "
                        + "\(error.serverInfo?[.tableName] ?? "?")); nothing of the transaction was written"
                )
            case let state where state.hasPrefix("08"):
                (.unavailable, "the connection to \(server) failed (SQLSTATE \(state))")
            default:
                (
                    .database,
                    "\(server) refused a statement of the state store (SQLSTATE \(state.isEmpty ? "unknown" : state))"
                        + (moment == .committing ? "; the transaction was not written" : "")
                )
            }
        return StorageError(code, message, underlying: error)
    }

    /// A statement's answer did not come in time; the store closed the connection.
    private func unanswered(_ error: PostgresUnanswered, _ moment: Moment) -> StorageError {
        let silence =
            "PostgreSQL at \(location.server) did not answer within \(error.seconds) s (the network, or a stuck "
            + "server), so the connection was closed"
        return switch moment {
        case .connecting:
            StorageError(
                .unavailable,
                "PostgreSQL at \(location.server) did not complete a connection within \(error.seconds) s (the "
                    + "network, or a stuck server), so the attempt was given up",
                underlying: error)
        case .statement:
            StorageError(.unavailable, silence + "; nothing of the transaction was written", underlying: error)
        case .committing:
            StorageError(
                .unavailable, silence + " while committing: the transaction may or may not have been written",
                underlying: error)
        }
    }

    /// The connection broke.
    private func lost(_ error: any Error, _ moment: Moment) -> StorageError {
        let server = "PostgreSQL at \(location.server)"
        return switch moment {
        case .connecting:
            unreachable(error, moment)
        case .statement:
            StorageError(
                .unavailable, "the connection to \(server) was lost; nothing of the transaction was written",
                underlying: error)
        case .committing:
            StorageError(
                .unavailable,
                "the connection to \(server) was lost while committing: the transaction may or may not have "
                    + "been written",
                underlying: error)
        }
    }

    /// A connection could not be made (refused, timed out, no such host).
    private func unreachable(_ error: any Error, _ moment: Moment, cause: (any Error)? = nil) -> StorageError {
        if moment != .connecting { return lost(cause ?? error, moment) }
        let reason = Self.reason(error).map { " (\($0))" } ?? ""
        return StorageError(
            .unavailable,
            "cannot connect to PostgreSQL at \(location.server)\(reason): check the URL, that the server runs "
                + "and that it accepts TCP connections from this host",
            underlying: cause ?? error)
    }

    /// A system error's words, for the few errors of making a connection.
    static func reason(_ error: any Error) -> String? {
        switch error {
        case let error as IOError: String(cString: strerror(error.errnoCode)).lowercased()
        case let error as NIOConnectionError:
            if error.dnsAError != nil || error.dnsAAAAError != nil, error.connectionErrors.isEmpty {
                "host not found"
            } else {
                error.connectionErrors.lazy.compactMap { reason($0.error) }.first
            }
        case let error as ChannelError:
            if case .connectTimeout = error { "timed out" } else { nil }
        default: nil
        }
    }
}
