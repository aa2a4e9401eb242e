import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock` on a separate lock file (`<keychain>.lock`), held for a read-modify-write.
///
/// The lock is on the lock file, not the key file, because a write renames a new inode over
/// the key file. `flock` locks belong to the open file description, so two opens in one
/// process exclude each other just as two processes do. The lock file is never deleted
/// (deleting it would let two writers lock two different inodes).
final class FileLock {
    private let fd: Int32
    let path: String

    /// Opens (creating 0600 if needed) and locks `path`, waiting for other holders.
    init(path: String) throws {
        let (fd, openError) = SecureFile.withPrivateUmask {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            return (fd, errno)
        }
        guard fd >= 0 else { throw KeychainError.io(path: path, operation: "opening lock file", errno: openError) }
        while flock(fd, LOCK_EX) != 0 {
            let code = errno
            if code == EINTR { continue }
            close(fd)
            throw KeychainError.io(path: path, operation: "locking", errno: code)
        }
        self.fd = fd
        self.path = path
    }

    /// Releases the lock (closing the descriptor releases it too).
    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
