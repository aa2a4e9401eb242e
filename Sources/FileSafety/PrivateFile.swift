import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files and directories only their owner can use: created 0600 (directories 0700), and read
/// the OpenSSH way (open, then check the already-open descriptor: a regular file, no group or
/// other bits, under a size cap), so a swap between check and read cannot slip past.
public enum PrivateFile {
    /// The contents of `path`, refused unless it is a regular file with no group or other
    /// permission bits (0600, 0400 …) and at most `limit` bytes (checked on the descriptor and
    /// again while reading, should the file grow). A symlink is followed: the file it names is
    /// checked.
    public static func read(_ path: String, limit: Int) throws -> Data {
        // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below).
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { throw FileSafetyError.notFound(path: path) }
            throw FileSafetyError.system(.opening, path: path, errno: code)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileSafetyError.system(.inspecting, path: path, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw FileSafetyError.notARegularFile(path: path) }
        let mode = UInt32(info.st_mode) & 0o7777
        guard mode & 0o077 == 0 else { throw FileSafetyError.insecurePermissions(path: path, mode: mode) }
        guard Int(info.st_size) <= limit else {
            throw FileSafetyError.tooLarge(path: path, size: Int(info.st_size), limit: limit)
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = try Descriptor.readSome(fd, into: &buffer, path: path)
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
            if data.count > limit { throw FileSafetyError.tooLarge(path: path, size: data.count, limit: limit) }
        }
    }

    /// Creates `path` empty with mode 0600 (and missing directories with 0700) unless something
    /// exists there (even a symlink). Returns whether it created the file; the creation is
    /// synced, file and directory. SQLite gives `-wal` and `-shm` the database's mode.
    @discardableResult
    public static func create(_ path: String) throws -> Bool {
        try createDirectory(for: path)
        let fd: Int32
        do {
            fd = try Descriptor.createPrivate(path)
        } catch FileSafetyError.system(.creating, _, EEXIST) {
            return false
        }
        defer { close(fd) }
        try Descriptor.sync(fd, path: path)
        try Descriptor.syncDirectory(Descriptor.directory(of: path))
        return true
    }

    /// Creates the directory holding `path` (0700, with missing parents) unless it exists.
    public static func createDirectory(for path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty else { return }
        try makeDirectories(directory)
    }

    /// `mkdir -p` with mode 0700 for what it creates; existing directories are left as they
    /// are. Something other than a directory in the way is refused ("Not a directory").
    public static func makeDirectories(_ directory: String) throws {
        guard !directory.isEmpty else { return }
        if try isDirectory(directory) { return }
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != directory { try makeDirectories(parent) }
        if mkdir(directory, 0o700) != 0 {
            let code = errno
            // Made by someone else meanwhile: fine, if it is a directory.
            guard code == EEXIST, try isDirectory(directory) else {
                throw FileSafetyError.system(
                    .creatingDirectory, path: directory, errno: code == EEXIST ? ENOTDIR : code)
            }
        }
    }

    /// Copies the file at `source` to a new file `destination` (mode 0600; nothing may exist
    /// there).
    public static func copy(_ source: String, to destination: String) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard input >= 0 else {
            let code = errno
            if code == ENOENT { throw FileSafetyError.notFound(path: source) }
            throw FileSafetyError.system(.opening, path: source, errno: code)
        }
        defer { close(input) }
        let output = try Descriptor.createPrivate(destination)
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = try Descriptor.readSome(input, into: &buffer, path: source)
            if count == 0 { return }
            try buffer.withUnsafeBytes {
                try Descriptor.writeAll(output, UnsafeRawBufferPointer(rebasing: $0[0..<count]), path: destination)
            }
        }
    }

    /// Whether something (anything, even a dangling symlink) exists at `path`.
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// `path` with symlinks in its directory part and the file itself resolved, so a write
    /// replaces the real file rather than the link.
    public static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    /// Whether `path` is a directory (following symlinks); false when nothing is there.
    private static func isDirectory(_ path: String) throws -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            // ENOTDIR: a file stands in the way higher up; the parent's check names it.
            if code == ENOENT || code == ENOTDIR { return false }
            throw FileSafetyError.system(.inspecting, path: path, errno: code)
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw FileSafetyError.system(.creatingDirectory, path: path, errno: ENOTDIR)
        }
        return true
    }
}
