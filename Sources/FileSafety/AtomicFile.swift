import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Replaces a file so that a crash at any instant leaves either the old or the new contents,
/// never a half-written file: a temp file in the same directory (O_EXCL, never through a
/// symlink, mode 0600 before the first byte), write, fsync, rename, fsync the directory.
///
/// `path` itself is replaced, so a symlink there is replaced by a file: resolve it first
/// (`PrivateFile.resolved`) to write through it.
public enum AtomicFile {
    /// The points a test can interrupt a write at.
    public enum Step: Sendable, Equatable, CaseIterable {
        /// The temp file created with mode 0600, nothing written yet.
        case tempCreated
        /// All bytes written to the temp file, not yet synced.
        case tempWritten
        /// The temp file synced.
        case tempSynced
        /// Immediately before the rename.
        case beforeRename
        /// Renamed, directory not yet synced.
        case renamed
    }

    /// A hook called at each step; throwing aborts the write there (simulating a crash), and
    /// the hook's error is rethrown as it is.
    public typealias Hook = @Sendable (Step) throws -> Void

    /// Writes `data` to `path` atomically with mode 0600 (or `mode`, set on the temp file before
    /// the first byte, for a file another user must read: a metrics text file). Blocks (fsync).
    ///
    /// The caller holds `path`'s lock (`FileLock`) whenever another writer may run: temp files
    /// of `path` left by a writer that was killed (SIGKILL, power loss) are removed first, since
    /// each may be a complete copy of something since replaced (a key file under a passphrase
    /// that has been changed), and under the lock no live writer owns one.
    public static func write(_ data: Data, to path: String, mode: mode_t = 0o600, hook: Hook? = nil) throws {
        let directory = Descriptor.directory(of: path)
        removeAbandonedTemps(of: path)
        let suffix = String(UInt64.random(in: 0..<(1 << 48)), radix: 16)
        let tempPath =
            directory + "/" + tempPrefix(of: path) + String(repeating: "0", count: 12 - suffix.count)
            + suffix

        let fd = try Descriptor.createPrivate(tempPath)
        var renamed = false
        defer { if !renamed { unlink(tempPath) } }
        do {
            defer { close(fd) }
            if mode != 0o600, fchmod(fd, mode) != 0 {
                throw FileSafetyError.system(.settingPermissions, path: tempPath, errno: errno)
            }
            try hook?(.tempCreated)
            try data.withUnsafeBytes { try Descriptor.writeAll(fd, $0, path: tempPath) }
            try hook?(.tempWritten)
            try Descriptor.sync(fd, path: tempPath)
            try hook?(.tempSynced)
        }
        try hook?(.beforeRename)
        guard rename(tempPath, path) == 0 else {
            throw FileSafetyError.system(.renaming, path: path, errno: errno)
        }
        renamed = true
        try hook?(.renamed)
        try Descriptor.syncDirectory(directory)
    }

    /// `.NAME.tmp-`: the name of every temp file of `path`, before its 12 lowercase hex digits.
    public static func tempPrefix(of path: String) -> String {
        ".\((path as NSString).lastPathComponent).tmp-"
    }

    /// Unlinks the temp files of `path` (`.NAME.tmp-` and 12 lowercase hex digits) in its
    /// directory; anything else, and anything that cannot be removed, is left alone.
    static func removeAbandonedTemps(of path: String) {
        let directory = Descriptor.directory(of: path)
        let prefix = tempPrefix(of: path)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            let suffix = name.dropFirst(prefix.count)
            let isLowerHex = suffix.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
            guard suffix.utf8.count == 12, isLowerHex else { continue }
            unlink(directory + "/" + name)
        }
    }
}
