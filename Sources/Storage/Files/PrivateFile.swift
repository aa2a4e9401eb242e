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
        guard !directory.isEmpty else { return }
        try makeDirectory(directory)
    }

    /// `mkdir -p` with mode 0700 for what it creates; failures in plain words (`strerror`).
    static func makeDirectory(_ directory: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw StorageError.io("creating directory", path: directory, errno: ENOTDIR)
            }
            return
        }
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != directory { try makeDirectory(parent) }
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw StorageError.io("creating directory", path: directory, errno: errno)
        }
    }

    /// Copies the file at `source` to a new file `destination` (mode 0600; it must not exist).
    static func copy(_ source: String, to destination: String) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw StorageError.io("reading", path: source, errno: errno) }
        defer { close(input) }
        let output = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard output >= 0 else { throw StorageError.io("creating", path: destination, errno: errno) }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw StorageError.io("reading", path: source, errno: errno) }
            if count == 0 { return }
            var written = 0
            while written < count {
                let step = buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, count - written) }
                if step < 0, errno == EINTR { continue }
                guard step > 0 else { throw StorageError.io("writing", path: destination, errno: errno) }
                written += step
            }
        }
    }

    /// Opens (creating 0600 if needed) `path` for a lock; returns the descriptor.
    static func openForLock(_ path: String) throws -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw StorageError.io("opening lock file", path: path, errno: errno) }
        return fd
    }
}
