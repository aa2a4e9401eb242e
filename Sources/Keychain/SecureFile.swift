import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading a secret file the OpenSSH way: open it, then check the already-open descriptor
/// (regular file, no group/other bits, size under the cap) so a swap between check and read
/// cannot slip past.
enum SecureFile {
    /// The contents of `path`, or an error naming what is wrong and how to fix it.
    ///
    /// - Parameters:
    ///   - limit: the largest accepted size in bytes, checked on the descriptor and while reading.
    ///   - what: how the file is named in errors ("keychain", "passphrase file").
    static func read(_ path: String, limit: Int, what: String) throws -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { throw KeychainError.fileNotFound(path: path) }
            throw KeychainError.io(path: path, operation: "opening", errno: code)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw KeychainError.io(path: path, operation: "fstat on", errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw KeychainError.notARegularFile(path: path) }
        let mode = UInt32(info.st_mode) & 0o7777
        guard mode & 0o077 == 0 else { throw KeychainError.insecurePermissions(path: path, mode: mode, what: what) }
        guard Int(info.st_size) <= limit else {
            throw KeychainError.fileTooLarge(path: path, size: Int(info.st_size), limit: limit)
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { posixRead(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw KeychainError.io(path: path, operation: "reading", errno: errno)
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
            // The file grew after fstat: still refuse to read past the cap.
            if data.count > limit { throw KeychainError.fileTooLarge(path: path, size: data.count, limit: limit) }
        }
        return data
    }

    /// Creates `directory` and missing parents with mode 0700 (existing ones are left alone).
    static func makeDirectories(_ directory: String) throws {
        if exists(directory) || directory.isEmpty { return }
        let parent = URL(fileURLWithPath: directory).deletingLastPathComponent().path
        if parent != directory { try makeDirectories(parent) }
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
            throw KeychainError.io(path: directory, operation: "creating directory", errno: errno)
        }
    }

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

    /// Whether something (anything, even a dangling symlink) exists at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// `path` with symlinks in its directory part and the file itself resolved, so a write
    /// replaces the real file rather than the link.
    static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}

/// `read(2)`, named apart from `SecureFile.read`.
func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.read(fd, buffer, count)
    #else
        Darwin.read(fd, buffer, count)
    #endif
}

/// `write(2)`, named apart from `AtomicWriter.write`.
func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(fd, buffer, count)
    #else
        Darwin.write(fd, buffer, count)
    #endif
}
