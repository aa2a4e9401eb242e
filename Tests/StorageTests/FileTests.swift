import Foundation
import MoltipassTesting
import Testing

@testable import Storage

/// The state store's use of the shared file-safety code (FileSafetyTests covers that code):
/// its lock file against another process, and file errors in the store's terms.
@Suite struct FileTests {
    /// While another process holds `<state>.lock`, opening the store gives up after the busy
    /// timeout with `.lockTimeout` and a plain message; once that process is gone it opens.
    @Test func openWaitsForAnotherProcessLock() async throws {
        let file = try StoreFile()
        defer { file.remove() }
        let holder = try await LockHolder.start(lockPath: file.path + ".lock")
        let start = Date()
        let error = await #expect(throws: StorageError.self) {
            _ = try await SQLiteStateStore.open(path: file.path, busyTimeout: 0.3)
        }
        #expect(Date().timeIntervalSince(start) >= 0.3)
        #expect(error?.code == .lockTimeout)
        #expect(error?.message == "\(file.path).lock stayed locked by another process for 0.3 s")
        #expect(!FileManager.default.fileExists(atPath: file.path), "the state file was created without the lock")
        await holder.kill()
        _ = try await SQLiteStateStore.open(path: file.path, busyTimeout: 1)
        #expect(try mode(file.path) == 0o600)
    }

    /// A state path under a regular file fails with `.io` and the system's words, no error
    /// domain or number.
    @Test func fileErrorsSpeakPlainly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let blocker = directory.file("a-file").path
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: blocker))
        let error = await #expect(throws: StorageError.self) {
            _ = try await SQLiteStateStore.open(path: blocker + "/state/state.sqlite")
        }
        #expect(error?.code == .io)
        #expect(error?.description == "creating directory \(blocker) failed: Not a directory")
    }
}
