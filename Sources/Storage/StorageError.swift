import Foundation

/// A failure of the state store, with a code the engine can branch on, a message saying what
/// went wrong and how to fix it, and the underlying cause.
///
/// Database-specific errors never cross this boundary as their own type: they are carried as
/// `underlying` (an opaque `any Error`) with the code `.database`, `.busy`, `.readOnly` or `.io`.
/// The description is the message alone, in plain words: the underlying error's own text
/// ("SQLite error 14", a Foundation error domain) is for debugging, never for the person reading
/// the message.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Equatable {
        /// The state file was written by a newer Moltipass (unknown schema migrations).
        case newerSchema
        /// A journal entry cannot move from its current state to the requested one.
        case illegalTransition
        /// The record the operation names does not exist.
        case notFound
        /// The database stayed locked by another connection beyond the busy timeout.
        case busy
        /// The state file, its directory or its file system cannot be written.
        case readOnly
        /// A file-system operation failed (creating, locking, syncing, renaming).
        case io
        /// A lock file could not be locked within the timeout.
        case lockTimeout
        /// The database server cannot be reached, refused the login, or the connection broke
        /// (PostgreSQL).
        case unavailable
        /// The state location is not usable as given (a malformed or unsafe URL, a password file
        /// that cannot be read).
        case invalidLocation
        /// Any other database failure.
        case database
    }

    public var code: Code
    public var message: String
    public var underlying: (any Error)?

    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String { message }

    static func io(_ operation: String, path: String, errno code: Int32) -> StorageError {
        StorageError(.io, "\(operation) \(path): \(String(cString: strerror(code)))")
    }
}
