import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Replaces a file so that a crash at any instant leaves either the old or the new contents:
/// temp file in the same directory (O_EXCL, 0600), write, fsync, rename, fsync the directory.
enum AtomicWriter {
    /// The points a test can interrupt a write at.
    enum Step: Sendable, Equatable, CaseIterable {
        /// All bytes written to the temp file, not yet synced.
        case tempWritten
        /// The temp file synced.
        case tempSynced
        /// Immediately before the rename.
        case beforeRename
        /// Renamed, directory not yet synced.
        case renamed
    }

    /// A hook called at each step; throwing aborts the write there (simulating a crash).
    typealias Hook = @Sendable (Step) throws -> Void

    /// Writes `data` to `path` atomically. The caller holds the lock.
    ///
    /// Temp files of `path` left by a writer that was killed (SIGKILL, power loss) are removed
    /// first: each is a complete sealed copy, possibly under a passphrase that has since been
    /// changed, and holding the lock means no live writer owns one.
    static func write(_ data: Data, to path: String, hook: Hook? = nil) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        removeAbandonedTemps(of: path)
        let suffix = KeychainCodec.randomBytes(6).map { String(format: "%02x", $0) }.joined()
        let tempPath = url.deletingLastPathComponent().appendingPathComponent(tempPrefix(of: path) + suffix).path

        let (fd, openError) = SecureFile.withPrivateUmask {
            let fd = open(tempPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            return (fd, errno)
        }
        guard fd >= 0 else { throw KeychainError.io(path: tempPath, operation: "creating", errno: openError) }
        var renamed = false
        defer { if !renamed { unlink(tempPath) } }
        do {
            defer { close(fd) }
            guard fchmod(fd, 0o600) == 0 else {
                throw KeychainError.io(path: tempPath, operation: "chmod", errno: errno)
            }
            try writeAll(fd, data, path: tempPath)
            try hook?(.tempWritten)
            guard fsync(fd) == 0 else { throw KeychainError.io(path: tempPath, operation: "fsync", errno: errno) }
            try hook?(.tempSynced)
        }
        try hook?(.beforeRename)
        guard rename(tempPath, path) == 0 else {
            throw KeychainError.io(path: path, operation: "renaming onto", errno: errno)
        }
        renamed = true
        try hook?(.renamed)
        try syncDirectory(directory)
    }

    /// `.NAME.tmp-`: the name of every temp file of `path`, before its 12 hex digits.
    static func tempPrefix(of path: String) -> String {
        ".\(URL(fileURLWithPath: path).lastPathComponent).tmp-"
    }

    /// Unlinks the temp files of `path` (`.NAME.tmp-` and 12 lowercase hex digits) in its
    /// directory; anything else, and anything that cannot be removed, is left alone.
    static func removeAbandonedTemps(of path: String) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        let prefix = tempPrefix(of: path)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            let suffix = name.dropFirst(prefix.count)
            guard suffix.count == 12, suffix.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { continue }
            unlink(directory.appendingPathComponent(name).path)
        }
    }

    /// Makes a rename in `directory` durable.
    static func syncDirectory(_ directory: String) throws {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw KeychainError.io(path: directory, operation: "opening directory", errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw KeychainError.io(path: directory, operation: "fsync", errno: errno) }
    }

    private static func writeAll(_ fd: Int32, _ data: Data, path: String) throws {
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = posixWrite(fd, raw.baseAddress?.advanced(by: offset), raw.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw KeychainError.io(path: path, operation: "writing", errno: errno)
                }
                offset += count
            }
        }
    }
}
