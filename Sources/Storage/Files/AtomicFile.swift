import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Replaces small files so that a crash at any instant leaves either the old or the new
/// contents: a temp file in the same directory (O_EXCL), write, fsync, rename, fsync the directory.
public enum AtomicFile {
    /// Writes `data` to `path` atomically with `permissions` (0600 by default). Blocks (fsync).
    /// Concurrent writers of one path must hold a lock (`FileLock`) for a read-modify-write.
    public static func write(_ data: Data, to path: String, permissions: mode_t = 0o600) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let tempPath = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp-\(suffix)")
            .path
        let fd = open(tempPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw StorageError.io("creating", path: tempPath, errno: errno) }
        var renamed = false
        defer { if !renamed { unlink(tempPath) } }
        do {
            defer { close(fd) }
            guard fchmod(fd, permissions) == 0 else { throw StorageError.io("chmod", path: tempPath, errno: errno) }
            try writeAll(fd, data, path: tempPath)
            guard fsync(fd) == 0 else { throw StorageError.io("fsync", path: tempPath, errno: errno) }
        }
        guard rename(tempPath, path) == 0 else { throw StorageError.io("renaming onto", path: path, errno: errno) }
        renamed = true
        try syncDirectory(directory)
    }

    /// Makes a creation or rename in `directory` durable.
    public static func syncDirectory(_ directory: String) throws {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StorageError.io("opening directory", path: directory, errno: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw StorageError.io("fsync", path: directory, errno: errno) }
    }

    private static func writeAll(_ fd: Int32, _ data: Data, path: String) throws {
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                #if canImport(Glibc)
                    let count = Glibc.write(fd, raw.baseAddress?.advanced(by: offset), raw.count - offset)
                #else
                    let count = Darwin.write(fd, raw.baseAddress?.advanced(by: offset), raw.count - offset)
                #endif
                if count < 0 {
                    if errno == EINTR { continue }
                    throw StorageError.io("writing", path: path, errno: errno)
                }
                offset += count
            }
        }
    }
}
