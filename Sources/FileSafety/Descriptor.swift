import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The descriptor-level steps that the lock, the atomic writer and the private file share.
enum Descriptor {
    /// Serialises umask changes: umask is per process, and two threads saving and restoring
    /// it out of order would leave 077 in place for the rest of the process.
    private static let umaskLock = Mutex(())

    /// Runs `body` (a file creation) with umask 077, restoring the previous umask after.
    static func withPrivateUmask<T>(_ body: () -> T) -> T {
        umaskLock.withLock { _ in
            let previous = umask(0o077)
            defer { umask(previous) }
            return body()
        }
    }

    /// Creates `path`, which must not exist (not even as a symlink), for writing, and makes it
    /// 0600 on the descriptor before anything is written: created under umask 077, then
    /// `fchmod` in case the umask took bits the owner needs. A failed `fchmod` removes the file.
    static func createPrivate(_ path: String) throws -> Int32 {
        let (fd, code) = withPrivateUmask {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            return (fd, errno)
        }
        guard fd >= 0 else { throw FileSafetyError.system(.creating, path: path, errno: code) }
        guard fchmod(fd, 0o600) == 0 else {
            let code = errno
            close(fd)
            unlink(path)
            throw FileSafetyError.system(.settingPermissions, path: path, errno: code)
        }
        return fd
    }

    /// Writes every byte of `bytes`, retrying interrupted and short writes.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let count = write(fd, bytes.baseAddress?.advanced(by: offset), bytes.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                throw FileSafetyError.system(.writing, path: path, errno: errno)
            }
            offset += count
        }
    }

    /// Reads up to `buffer.count` bytes, retrying when interrupted; 0 at the end of the file.
    static func readSome(_ fd: Int32, into buffer: inout [UInt8], path: String) throws -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count >= 0 { return count }
            if errno != EINTR { throw FileSafetyError.system(.reading, path: path, errno: errno) }
        }
    }

    /// `fsync` on `fd`.
    static func sync(_ fd: Int32, path: String) throws {
        guard fsync(fd) == 0 else { throw FileSafetyError.system(.syncing, path: path, errno: errno) }
    }

    /// Makes a creation or rename in `directory` durable.
    static func syncDirectory(_ directory: String) throws {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSafetyError.system(.openingDirectory, path: directory, errno: errno) }
        defer { close(fd) }
        try sync(fd, path: directory)
    }

    /// The directory part of `path` ("." for a bare name).
    static func directory(of path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }
}
