import Foundation
import Storage

/// Where a PostgreSQL state lives, read from a URL:
/// `postgres://USER@HOST[:PORT]/DATABASE?schema=NAME&sslmode=MODE&password_file=PATH`
/// (`postgresql://` too).
///
/// A password is never part of the URL: a URL shows in argv, environment listings and logs, so
/// `user:secret@` is refused. The password comes from a file: the URL's `password_file=`, else
/// the one the caller passes (`MOLTIPASS_STATE_PASSWORD_FILE`); one trailing newline is
/// stripped. No file at all: the login goes without a password (trust or peer setups).
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// How the connection uses TLS (libpq's `sslmode` names).
    public enum TLSMode: String, Sendable, CaseIterable {
        /// Plain TCP.
        case disable
        /// TLS when the server offers it, plain otherwise; the certificate is not checked (libpq's default).
        case prefer
        /// TLS or no connection; the certificate is not checked (encryption only, as libpq's `require`).
        case require
        /// TLS with the server's certificate checked against the system's roots and the host name.
        case verifyFull = "verify-full"
    }

    public var user: String
    public var host: String
    public var port: Int
    public var database: String
    /// The schema every table lives in (`moltipass` unless the URL says).
    public var schema: String
    public var tls: TLSMode
    /// The file holding the password, if any.
    public var passwordFile: String?

    /// The schema when the URL names none.
    public static let defaultSchema = "moltipass"

    /// Whether `text` is a PostgreSQL URL (else a state file path).
    public static func isURL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Reads `url`; `passwordFile` is the file to use when the URL names none.
    public init(url text: String, passwordFile fallback: String? = nil) throws {
        guard Self.isURL(text) else {
            throw Self.invalid("the state URL must start with postgres:// or postgresql://")
        }
        guard let components = URLComponents(string: text) else {
            throw Self.invalid(
                "the state URL is not a valid URL (postgres://USER@HOST:PORT/DATABASE?schema=NAME): "
                    + "characters such as @ : / ? in a user or database name must be percent-encoded")
        }
        // Checked first, and said without the URL: it holds the secret.
        if components.percentEncodedPassword != nil {
            throw Self.invalid(
                "the state URL holds a password (USER:PASSWORD@); a URL is seen in argv, environment "
                    + "listings and logs, so Moltipass refuses it: put the password in a file readable only by "
                    + "you and name it with ?password_file=PATH or MOLTIPASS_STATE_PASSWORD_FILE")
        }
        guard let user = components.user, !user.isEmpty else {
            throw Self.invalid("the state URL names no user: postgres://USER@HOST:PORT/DATABASE")
        }
        var host = components.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else {
            throw Self.invalid("the state URL names no host: postgres://USER@HOST:PORT/DATABASE")
        }
        if let port = components.port, !(1...65_535).contains(port) {
            throw Self.invalid("the state URL's port \(port) is not a TCP port (1 to 65535)")
        }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !path.contains("/") else {
            throw Self.invalid("the state URL's path must be one database name: postgres://USER@HOST:PORT/DATABASE")
        }
        self.user = user
        self.host = host
        self.port = components.port ?? 5432
        self.database = path.isEmpty ? user : path
        self.schema = Self.defaultSchema
        self.tls = .prefer
        self.passwordFile = fallback.flatMap { $0.isEmpty ? nil : $0 }
        try readParameters(components.queryItems ?? [])
    }

    private mutating func readParameters(_ items: [URLQueryItem]) throws {
        var seen: Set<String> = []
        for item in items {
            guard seen.insert(item.name).inserted else {
                throw Self.invalid("the state URL gives the parameter \(item.name) twice")
            }
            let value = item.value ?? ""
            switch item.name {
            case "schema":
                guard Self.isPlainIdentifier(value) else {
                    throw Self.invalid(
                        "the state URL's schema must be 1 to 63 lower-case letters, digits and underscores, "
                            + "starting with a letter or an underscore")
                }
                schema = value
            case "sslmode":
                guard let mode = TLSMode(rawValue: value) else {
                    throw Self.invalid(
                        "the state URL's sslmode must be one of "
                            + TLSMode.allCases.map(\.rawValue).joined(separator: ", "))
                }
                tls = mode
            case "password_file":
                guard !value.isEmpty else { throw Self.invalid("the state URL's password_file is empty") }
                passwordFile = value
            default:
                throw Self.invalid(
                    "the state URL has a parameter Moltipass does not know (\(item.name)); it knows schema, "
                        + "sslmode and password_file")
            }
        }
    }

    /// user@host:port/database, and the schema: for messages (never a password).
    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(user)@\(shownHost):\(port)/\(database) (schema \(schema))"
    }

    /// The server, for messages: `host:port`.
    var server: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The password from `passwordFile`, without one trailing newline; nil when there is no file.
    public func password() throws -> String? {
        guard let path = passwordFile else { return nil }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw Self.invalid(
                "the password file \(path) cannot be read: check that it exists and that this user may read it")
        }
        defer { try? handle.close() }
        let limit = 4_096
        let data = (try? handle.read(upToCount: limit + 1)) ?? Data()
        guard data.count <= limit else {
            throw Self.invalid("the password file \(path) is larger than \(limit) bytes: it is not a password file")
        }
        guard var password = String(data: data, encoding: .utf8) else {
            throw Self.invalid("the password file \(path) is not UTF-8 text")
        }
        // "\r\n" is one Character in Swift, so this strips either ending once.
        if password.hasSuffix("\n") || password.hasSuffix("\r\n") { password.removeLast() }
        guard !password.isEmpty else { throw Self.invalid("the password file \(path) is empty") }
        return password
    }

    /// A schema name that needs no quoting and cannot surprise: `[a-z_][a-z0-9_]{0,62}`.
    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 63 else { return false }
        let lower = UInt8(ascii: "a")...UInt8(ascii: "z")
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        let underscore = UInt8(ascii: "_")
        guard lower.contains(first) || first == underscore else { return false }
        return name.utf8.allSatisfy { lower.contains($0) || digits.contains($0) || $0 == underscore }
    }

    static func invalid(_ message: String) -> StorageError { StorageError(.invalidLocation, message) }
}
