import Foundation
import Logging
import MoltipassEngine
import PostgresStorage
import Storage

/// Where the state database lives: `--state`, else `MOLTIPASS_STATE`, else
/// `$XDG_STATE_HOME/moltipass/state.sqlite`, else `~/.local/state/moltipass/state.sqlite`.
/// A value starting with `postgres://` or `postgresql://` is a PostgreSQL state (issue 23).
public enum StateLocation {
    public static func path(flag: String?, environment: [String: String]) -> String? {
        if let flag, !flag.isEmpty { return flag }
        if let value = environment["MOLTIPASS_STATE"], !value.isEmpty { return value }
        if let base = environment["XDG_STATE_HOME"], !base.isEmpty { return base + "/moltipass/state.sqlite" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.local/state/moltipass/state.sqlite" }
        return nil
    }

    /// The state named by `--state` or the environment; nil when nothing names one.
    public static func target(flag: String?, environment: [String: String]) -> StateTarget? {
        path(flag: flag, environment: environment).map { StateTarget($0, environment: environment) }
    }
}

/// A state file, or a PostgreSQL database shared by many runners.
public enum StateTarget: Sendable, Equatable, CustomStringConvertible {
    case file(String)
    /// The URL as given (it holds no password: `PostgresLocation` refuses one), and the
    /// password's file from `MOLTIPASS_STATE_PASSWORD_FILE` when the URL names none.
    case postgres(url: String, passwordFile: String?)

    public init(_ text: String, environment: [String: String]) {
        if PostgresLocation.isURL(text) {
            let file = environment["MOLTIPASS_STATE_PASSWORD_FILE"].flatMap { $0.isEmpty ? nil : $0 }
            self = .postgres(url: text, passwordFile: file)
        } else {
            self = .file(text)
        }
    }

    /// The state file's path; nil for PostgreSQL.
    public var filePath: String? {
        if case .file(let path) = self { return path }
        return nil
    }

    /// For messages: the path, or the server, database and schema (never a password).
    public var description: String {
        switch self {
        case .file(let path): return path
        case .postgres(let url, let passwordFile):
            return (try? PostgresLocation(url: url, passwordFile: passwordFile).description) ?? "the PostgreSQL state"
        }
    }

    /// Opens the state for writing (created and migrated when needed).
    public func open(logger: Logger = Logger(label: "moltipass.state")) async throws -> any StateStore {
        switch self {
        case .file(let path): return try await SQLiteStateStore.open(path: path)
        case .postgres(let url, let passwordFile):
            return try await PostgresStateStore.open(url: url, passwordFile: passwordFile, logger: logger)
        }
    }

    /// A view for commands that never write (`status`, `pending`, `history`, `generate`): a
    /// private in-memory copy of a file (the file stays byte-identical, no lock is taken); the
    /// database itself for PostgreSQL, read in `REPEATABLE READ READ ONLY` transactions.
    public func readOnly(logger: Logger = Logger(label: "moltipass.state")) async throws -> any StateStore {
        switch self {
        case .file(let path): return try SQLiteStateStore.snapshot(of: path)
        case .postgres: return try await open(logger: logger)
        }
    }

    /// Whether there is a state to read: a file that exists; a PostgreSQL state always.
    public func exists() throws -> Bool {
        switch self {
        case .file(let path): return try SQLiteStateStore.stateFileExists(path)
        case .postgres: return true
        }
    }

    /// Closes a store this target opened (PostgreSQL's connections; a file store closes itself).
    public static func close(_ store: any StateStore) async {
        if let postgres = store as? PostgresStateStore { await postgres.close() }
    }
}
