import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Creating files only their owner can read.
enum PrivateFile {
    /// Creates `path` empty with mode 0600 (and missing directories with 0700) unless it exists.
    /// Returns whether it created the file. SQLite gives `-wal` and `-shm` the database's mode.
    @discardableResult
    static func create(_ path: String) throws -> Bool {
        try createDirectory(for: path)
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd < 0 {
            let code = errno
            if code == EEXIST { return false }
            throw StorageError.io("creating", path: path, errno: code)
        }
        defer { close(fd) }
        // The umask may have removed bits the owner needs.
        guard fchmod(fd, 0o600) == 0 else { throw StorageError.io("chmod", path: path, errno: errno) }
        guard fsync(fd) == 0 else { throw StorageError.io("fsync", path: path, errno: errno) }
        try AtomicFile.syncDirectory(directory.isEmpty ? "." : directory)
        return true
    }

    /// Creates the directory holding `path` (0700, with missing parents) unless it exists.
    static func createDirectory(for path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty, !FileManager.default.fileExists(atPath: directory) else { return }
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StorageError(.io, "creating directory \(directory)", underlying: error)
        }
    }

    /// Opens (creating 0600 if needed) `path` for a lock; returns the descriptor.
    static func openForLock(_ path: String) throws -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw StorageError.io("opening lock file", path: path, errno: errno) }
        return fd
    }
}
