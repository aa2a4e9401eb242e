import Foundation
import MoltipassTesting
import Testing

@testable import Storage

@Suite struct FileTests {
    /// A held lock file refuses a second try-lock (even in the same process) until it is unlocked.
    @Test func tryLockExcludes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = FileLock.lockPath(for: directory.file("state.sqlite").path)
        let (second, third, mode) = try await offloaded {
            let first = try FileLock.tryLock(path: path)
            let second = try FileLock.tryLock(path: path)
            first?.unlock()
            let third = try FileLock.tryLock(path: path)
            return (second == nil, third != nil, try StorageTests.mode(path))
        }
        #expect(second && third)
        #expect(mode == 0o600)
        #expect(path.hasSuffix("state.sqlite.lock"))
    }

    /// A blocking lock gives up with `.lockTimeout` after its timeout while another holds it,
    /// and succeeds once the holder lets go.
    @Test func lockTimesOutThenSucceeds() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("x.lock").path
        let (code, waited, acquired) = try await offloaded {
            let holder = try FileLock.lock(path: path, timeout: 1)
            let start = Date()
            var code: StorageError.Code?
            do { _ = try FileLock.lock(path: path, timeout: 0.2) } catch let error as StorageError { code = error.code }
            let waited = Date().timeIntervalSince(start)
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { holder.unlock() }
            let acquired = try FileLock.lock(path: path, timeout: 5).isLocked
            return (code, waited, acquired)
        }
        #expect(code == .lockTimeout)
        #expect(waited >= 0.2)
        #expect(acquired)
    }

    /// An atomic write replaces the file's contents whole, with mode 0600, and leaves no temp file.
    @Test func atomicWrite() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("small.json").path
        let (first, second, mode, names) = try await offloaded {
            try AtomicFile.write(Data("one".utf8), to: path)
            let first = contents(path)
            try AtomicFile.write(Data("two".utf8), to: path)
            return (
                first, contents(path), try StorageTests.mode(path),
                try FileManager.default.contentsOfDirectory(atPath: directory.path)
            )
        }
        #expect(first == Data("one".utf8))
        #expect(second == Data("two".utf8))
        #expect(mode == 0o600)
        #expect(names == ["small.json"])
    }
}
