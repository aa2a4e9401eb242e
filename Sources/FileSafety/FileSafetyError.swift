import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What went wrong with a lock file, an atomic write or a private file.
///
/// Each case carries the path and what a person needs to act. `description` is plain English:
/// the system's own words for an `errno` (`strerror`: "Permission denied", "No such file or
/// directory"), never a number or a Foundation error domain. Keychain and Storage map these to
/// their own error types.
public enum FileSafetyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The system call behind a step that failed.
    public enum Operation: String, Sendable, Equatable {
        case opening = "opening"
        case openingLockFile = "opening lock file"
        case openingDirectory = "opening directory"
        case creating = "creating"
        case creatingDirectory = "creating directory"
        case locking = "locking"
        case settingPermissions = "setting permissions on"
        case inspecting = "inspecting"
        case reading = "reading"
        case writing = "writing"
        case syncing = "syncing"
        case renaming = "renaming onto"
    }

    /// Nothing at the path.
    case notFound(path: String)
    /// The path is a directory, device, socket or FIFO where a regular file was expected.
    case notARegularFile(path: String)
    /// The file is readable or writable by group or others; it was not read.
    case insecurePermissions(path: String, mode: UInt32)
    /// The file is larger than the caller's cap; it was not read (or not past the cap).
    case tooLarge(path: String, size: Int, limit: Int)
    /// The lock file stayed locked by another holder for the whole timeout.
    case lockTimeout(path: String, timeout: TimeInterval)
    /// A system call failed with `errno`.
    case system(Operation, path: String, errno: Int32)

    public var description: String {
        switch self {
        case .notFound(let path):
            return "\(path) does not exist"
        case .notARegularFile(let path):
            return "\(path) is not a regular file"
        case .insecurePermissions(let path, let mode):
            return "refusing to use \(path): it is accessible by group or others (mode \(Self.octal(mode))); "
                + "fix it with: \(Self.chmodHint(for: path))"
        case .tooLarge(let path, let size, let limit):
            return "refusing to read \(path): \(size) bytes is over the \(limit)-byte limit"
        case .lockTimeout(let path, let timeout):
            return "\(path) stayed locked by another process for \(String(format: "%g", timeout)) s"
        case .system(let operation, let path, let code):
            return "\(operation.rawValue) \(path) failed: \(Self.reason(code))"
        }
    }

    /// The `errno` in words ("Permission denied").
    public var reason: String? {
        if case .system(_, _, let code) = self { return Self.reason(code) }
        return nil
    }

    /// The command that makes `path` private: `chmod 600 PATH`, the path quoted for a shell
    /// when it holds anything beyond letters, digits and `/._-+:@%`.
    public static func chmodHint(for path: String) -> String {
        "chmod 600 " + shellQuoted(path)
    }

    /// Four octal digits: `0644`.
    public static func octal(_ mode: UInt32) -> String { String(format: "%04o", mode) }

    static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }

    static func shellQuoted(_ path: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@%")
        if !path.isEmpty && path.allSatisfy({ safe.contains($0) }) { return path }
        return "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
