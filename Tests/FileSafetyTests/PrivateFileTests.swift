import FileSafety
import Foundation
import MoltipassTesting
import Testing

/// Owner-only files: created 0600 in 0700 directories, read only when nobody else may touch them.
@Suite struct PrivateFileTests {
    /// `create` makes missing directories 0700 and an empty 0600 file, once: a second call
    /// reports the file exists and leaves its contents alone.
    @Test func createOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("nested/state/state.sqlite").path
        #expect(try PrivateFile.create(path))
        #expect(try Files.mode(path) == 0o600)
        #expect(try Files.mode(directory.file("nested").path) == 0o700)
        #expect(try Files.mode(directory.file("nested/state").path) == 0o700)
        #expect(Files.contents(path) == "")
        try Files.write("data", to: path)
        #expect(try PrivateFile.create(path) == false)
        #expect(Files.contents(path) == "data")
    }

    /// `create` on a symlink neither follows it nor replaces it.
    @Test func createLeavesSymlinkAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let link = directory.file("state.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: directory.file("nowhere").path)
        #expect(try PrivateFile.create(link) == false)
        #expect(!FileManager.default.fileExists(atPath: directory.file("nowhere").path))
    }

    /// A file with no group or other bits is read whole.
    @Test(arguments: [0o600, 0o400, 0o700])
    func privateModesRead(mode: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("passphrase").path
        try Files.write("correct horse", to: path, mode: mode)
        #expect(try PrivateFile.read(path, limit: 64) == Data("correct horse".utf8))
    }

    /// A file readable, writable or executable by group or others is refused with its mode and
    /// the chmod that fixes it, and not read.
    @Test(arguments: [0o644, 0o640, 0o604, 0o620, 0o602, 0o660, 0o610, 0o601, 0o666])
    func looseModesRefused(mode: Int) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("keys moltipass").path
        try Files.write("sealed", to: path, mode: mode)
        let error = Files.error { _ = try PrivateFile.read(path, limit: 64) }
        #expect(error == .insecurePermissions(path: path, mode: UInt32(mode)))
        #expect(error?.description.hasSuffix("fix it with: chmod 600 '\(path)'") == true)
        #expect(error?.description.contains(String(format: "(mode %04o)", mode)) == true)
    }

    /// A symlink is followed and the file it names is the one checked.
    @Test func symlinkTargetChecked() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.file("secret").path
        let link = directory.file("link").path
        try Files.write("s", to: target)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(try PrivateFile.read(link, limit: 8) == Data("s".utf8))
        try Files.chmod(target, 0o644)
        #expect(
            Files.error { _ = try PrivateFile.read(link, limit: 8) } == .insecurePermissions(path: link, mode: 0o644))
    }

    /// Missing files, directories and FIFOs are refused by name (a FIFO without waiting for
    /// a writer).
    @Test func notARegularFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let missing = directory.file("none").path
        #expect(Files.error { _ = try PrivateFile.read(missing, limit: 8) } == .notFound(path: missing))
        let folder = directory.file("folder").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try Files.chmod(folder, 0o700)
        #expect(Files.error { _ = try PrivateFile.read(folder, limit: 8) } == .notARegularFile(path: folder))
        let fifo = directory.file("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(Files.error { _ = try PrivateFile.read(fifo, limit: 8) } == .notARegularFile(path: fifo))
    }

    /// A file over the cap is refused without being read; one at the cap is read.
    @Test func sizeCapped() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("big").path
        try Files.write("0123456789", to: path)
        #expect(try PrivateFile.read(path, limit: 10).count == 10)
        try Files.write("0123456789X", to: path)
        #expect(Files.error { _ = try PrivateFile.read(path, limit: 10) } == .tooLarge(path: path, size: 11, limit: 10))
    }

    /// `makeDirectories` creates what is missing 0700, leaves existing directories as they are,
    /// and refuses a file in the way in plain words.
    @Test func makeDirectories() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Files.chmod(directory.path, 0o755)
        try PrivateFile.makeDirectories(directory.file("a/b/c").path)
        #expect(try Files.mode(directory.file("a/b/c").path) == 0o700)
        #expect(try Files.mode(directory.file("a").path) == 0o700)
        #expect(try Files.mode(directory.path) == 0o755)

        let file = directory.file("a-file").path
        try Files.write("not a directory", to: file)
        for wanted in [file, file + "/sub"] {
            let error = Files.error { try PrivateFile.makeDirectories(wanted) }
            #expect(error == .system(.creatingDirectory, path: file, errno: ENOTDIR), "\(wanted)")
            #expect(error?.description == "creating directory \(file) failed: Not a directory")
        }
    }

    /// `copy` makes a new 0600 file with the same bytes, and never overwrites.
    @Test func copyPrivate() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let source = directory.file("state.sqlite").path
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: source))
        try Files.chmod(source, 0o644)
        let copy = directory.file("copy.sqlite").path
        try PrivateFile.copy(source, to: copy)
        #expect(FileManager.default.contents(atPath: copy) == Data(bytes))
        #expect(try Files.mode(copy) == 0o600)
        #expect(Files.error { try PrivateFile.copy(source, to: copy) } == .system(.creating, path: copy, errno: EEXIST))
        let missing = directory.file("missing").path
        #expect(Files.error { try PrivateFile.copy(missing, to: copy + "2") } == .notFound(path: missing))
    }

    /// `exists` sees anything, even a dangling symlink; `resolved` names the real file.
    @Test func existsAndResolved() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let dangling = directory.file("dangling").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: directory.file("no").path)
        #expect(PrivateFile.exists(dangling))
        #expect(!PrivateFile.exists(directory.file("no").path))
        let real = directory.file("real").path
        try Files.write("x", to: real)
        let link = directory.file("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        #expect(PrivateFile.resolved(link) == PrivateFile.resolved(real))
        #expect(PrivateFile.resolved(link).hasSuffix("/real"))
    }
}
