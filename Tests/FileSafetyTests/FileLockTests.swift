import FileSafety
import Foundation
import MoltipassTesting
import Testing

/// The lock file: exclusion within a process and between processes, timeouts, no stale locks.
/// The other process is a real one (`flock(1)`, the same `flock(2)` lock).
@Suite struct FileLockTests {
    /// A held lock refuses a second try-lock in the same process until it is unlocked; the
    /// lock file is 0600 and stays after the unlock.
    @Test func inProcessTryLockExcludes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = FileLock.lockPath(for: directory.file("state.sqlite").path)
        let (second, third, mode) = try await offloaded {
            let first = try FileLock.tryLock(path: path)
            let second = try FileLock.tryLock(path: path)
            first?.unlock()
            let third = try FileLock.tryLock(path: path)
            third?.unlock()
            return (second == nil, third != nil, try Files.mode(path))
        }
        #expect(second && third)
        #expect(mode == 0o600)
        #expect(path.hasSuffix("state.sqlite.lock"))
        #expect(FileManager.default.fileExists(atPath: path))
    }

    /// A timed lock gives up with `.lockTimeout` after its timeout while another holds it, and
    /// succeeds once the holder lets go.
    @Test func lockTimesOutThenSucceeds() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("x.lock").path
        let (error, waited, acquired) = try await offloaded {
            let holder = try FileLock.lock(path: path, timeout: 1)
            let start = Date()
            let error = Files.error { _ = try FileLock.lock(path: path, timeout: 0.2) }
            let waited = Date().timeIntervalSince(start)
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { holder.unlock() }
            let acquired = try FileLock.lock(path: path, timeout: 5).isLocked
            return (error, waited, acquired)
        }
        #expect(error == .lockTimeout(path: path, timeout: 0.2))
        #expect(error?.description == "\(path) stayed locked by another process for 0.2 s")
        #expect(waited >= 0.2)
        #expect(acquired)
    }

    /// While another process holds the lock: try-lock finds it taken, a timed lock times out,
    /// and a waiting lock returns only after that process has ended.
    @Test func anotherProcessExcludesUs() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("keys.lock").path
        let holder = try await LockHolder.start(lockPath: path)
        let taken = try await offloaded { try FileLock.tryLock(path: path) == nil }
        #expect(taken)
        let timedOut = try await offloaded { Files.error { _ = try FileLock.lock(path: path, timeout: 0.1) } }
        #expect(timedOut == .lockTimeout(path: path, timeout: 0.1))

        let acquiredAt = Shared<Date?>(nil)
        let waiter = Task {
            try await offloaded {
                let lock = try FileLock.lock(path: path)
                let now = Date()
                acquiredAt.update { $0 = now }
                lock.unlock()
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(acquiredAt.current == nil, "the lock was taken while another process held it")
        let killedAt = Date()
        await holder.kill()
        try await waiter.value
        let acquired = try #require(acquiredAt.current)
        #expect(acquired >= killedAt)
    }

    /// While this process holds the lock another process cannot take it; once it is unlocked
    /// (or the lock object goes away) it can.
    @Test func weKeepAnotherProcessOut() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("state.lock").path
        let lock = try await offloaded { try FileLock.lock(path: path) }
        #expect(try await LockHolder.isFree(path) == false)
        lock.unlock()
        #expect(try await LockHolder.isFree(path))
        #expect(!lock.isLocked)

        try await offloaded { _ = try FileLock.lock(path: path) }
        #expect(try await LockHolder.isFree(path), "a dropped lock object must release its lock")
    }

    /// A holder killed with SIGKILL leaves no stale lock: the kernel releases it.
    @Test func killedHolderLeavesNoStaleLock() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("state.lock").path
        let holder = try await LockHolder.start(lockPath: path)
        #expect(try await offloaded { try FileLock.tryLock(path: path) } == nil)
        await holder.kill()
        let lock = try await offloaded { try FileLock.tryLock(path: path) }
        #expect(lock?.isLocked == true)
    }

    /// A lock path that is a symlink is refused (it could point the lock anywhere), and its
    /// target is left alone; a lock in a missing directory fails in plain words.
    @Test func symlinkAndMissingDirectoryRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.file("elsewhere").path
        try Files.write("untouched", to: target, mode: 0o644)
        let link = directory.file("keys.lock").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(
            Files.error { _ = try FileLock.tryLock(path: link) } == .system(.openingLockFile, path: link, errno: ELOOP))
        #expect(Files.contents(target) == "untouched")
        #expect(try Files.mode(target) == 0o644)

        let missing = directory.file("missing/keys.lock").path
        let error = Files.error { _ = try FileLock.tryLock(path: missing) }
        #expect(error == .system(.openingLockFile, path: missing, errno: ENOENT))
        #expect(error?.description == "opening lock file \(missing) failed: No such file or directory")
    }
}
