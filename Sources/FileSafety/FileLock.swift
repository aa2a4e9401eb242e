import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock` on a separate lock file (by convention `<data file>.lock`).
///
/// Lock a separate file, never the data file: an atomic write renames a new inode over the
/// data file, and SQLite's own locks must not be disturbed. `flock` locks belong to the open
/// file description, so two locks in one process exclude each other as two processes do. The
/// lock is released by `unlock()`, by deinit, or by the process dying (never stale). The lock
/// file is created 0600, never through a symlink, and never deleted (two holders could
/// otherwise lock two different inodes).
public final class FileLock: Sendable {
    public let path: String
    private let descriptor: Mutex<Int32?>

    private init(path: String, fd: Int32) {
        self.path = path
        descriptor = Mutex(fd)
    }

    /// The lock file that goes with `path`.
    public static func lockPath(for path: String) -> String { path + ".lock" }

    /// Locks `path` if nobody holds it; nil when someone does. Does not wait.
    public static func tryLock(path: String) throws -> FileLock? {
        try acquire(path: path, operation: LOCK_EX | LOCK_NB)
    }

    /// Locks `path`, waiting as long as another holder keeps it. Blocks the calling thread.
    public static func lock(path: String) throws -> FileLock {
        guard let lock = try acquire(path: path, operation: LOCK_EX) else {
            throw FileSafetyError.system(.locking, path: path, errno: EWOULDBLOCK)
        }
        return lock
    }

    /// Locks `path`, waiting at most `timeout` seconds (then `.lockTimeout`). Blocks the calling
    /// thread while it waits: call it off the cooperative pool.
    public static func lock(path: String, timeout: TimeInterval) throws -> FileLock {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, timeout) * 1e9)
        var pause: UInt32 = 1_000
        while true {
            if let lock = try tryLock(path: path) { return lock }
            if DispatchTime.now().uptimeNanoseconds >= deadline {
                throw FileSafetyError.lockTimeout(path: path, timeout: timeout)
            }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
    }

    /// Releases the lock (idempotent).
    public func unlock() {
        descriptor.withLock { fd in
            guard let open = fd else { return }
            flock(open, LOCK_UN)
            close(open)
            fd = nil
        }
    }

    /// Whether this object still holds the lock.
    public var isLocked: Bool { descriptor.withLock { $0 != nil } }

    deinit { unlock() }

    /// Opens (creating 0600 if needed) and `flock`s `path`; nil when a non-blocking attempt
    /// finds it held.
    private static func acquire(path: String, operation: Int32) throws -> FileLock? {
        let (fd, code) = Descriptor.withPrivateUmask {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            return (fd, errno)
        }
        guard fd >= 0 else { throw FileSafetyError.system(.openingLockFile, path: path, errno: code) }
        while flock(fd, operation) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(fd)
            if code == EWOULDBLOCK && operation & LOCK_NB != 0 { return nil }
            throw FileSafetyError.system(.locking, path: path, errno: code)
        }
        return FileLock(path: path, fd: fd)
    }
}
