import Foundation
import MoltipassTesting
import Testing

@testable import Storage

@Suite struct SnapshotTests {
    /// A plan snapshot sees the file's data, takes writes of its own, and leaves every file of
    /// the real state byte-identical (no lock, WAL or SHM file appears either).
    @Test func snapshotLeavesFileByteIdentical() async throws {
        let file = try StoreFile()
        defer { file.remove() }
        let store = try await file.open()
        _ = try await store.recordIntent(.sample("k1"), at: T.t0)
        try store.close()
        let names = try FileManager.default.contentsOfDirectory(atPath: file.directory.path).sorted()
        let before = contents(file.path)

        let (seen, copied, inserted) = try await offloaded {
            let snapshot = try SQLiteStateStore.snapshot(of: file.path)
            let seen = try snapshot.blockingTransaction { try $0.journalEntry(key: "k1") }
            let inserted = try snapshot.blockingTransaction { tx in
                _ = try tx.markSent(key: "k1", at: T.at(1))
                return try tx.recordIntent(.sample("k2"), at: T.at(2)).inserted
            }
            let copied = try snapshot.blockingTransaction { try $0.journalEntry(key: "k1")?.state }
            return (seen?.state, copied, inserted)
        }
        #expect(seen == .intent)
        #expect(copied == .sent)
        #expect(inserted)
        #expect(before != nil)
        #expect(contents(file.path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: file.directory.path).sorted() == names)

        let reopened = try await file.open()
        let (real, absent) = try await reopened.read {
            (try await $0.journalEntry(key: "k1")?.state, try await $0.journalEntry(key: "k2"))
        }
        #expect(real == .intent)
        #expect(absent == nil)
    }

    /// A snapshot taken while a store has the file open (WAL in use) leaves the main file, the
    /// WAL and the lock file byte-identical.
    @Test func snapshotOfOpenStore() async throws {
        let file = try StoreFile()
        defer { file.remove() }
        let store = try await file.open()
        _ = try await store.recordIntent(.sample("k1"), at: T.t0)
        let paths = [file.path, file.path + "-wal", file.path + ".lock"]
        let before = paths.map(contents)
        let seen = try await offloaded {
            let snapshot = try SQLiteStateStore.snapshot(of: file.path)
            _ = try snapshot.blockingTransaction { try $0.markSent(key: "k1", at: T.at(1)) }
            return try snapshot.blockingTransaction { try $0.journalEntry(key: "k1")?.attempts }
        }
        #expect(seen == 1)
        #expect(paths.map(contents) == before)
        #expect(try await store.journalEntry(key: "k1")?.state == .intent)
    }

    /// A snapshot of a missing file is an empty store, and the file is not created.
    @Test func snapshotOfMissingFile() async throws {
        let file = try StoreFile()
        defer { file.remove() }
        let accounts = try await offloaded {
            let snapshot = try SQLiteStateStore.snapshot(of: file.path)
            return try snapshot.blockingTransaction { try $0.knownAccounts() }
        }
        #expect(accounts.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: file.directory.path).isEmpty)
    }

    /// A snapshot of an open store copies it; writes to the copy stay in the copy.
    @Test func snapshotOfStore() async throws {
        let store = try SQLiteStateStore.inMemory()
        _ = try await store.recordIntent(.sample("k1"), at: T.t0)
        let copy = try await store.snapshot()
        _ = try await copy.markSent(key: "k1", at: T.at(1))
        #expect(try await copy.journalEntry(key: "k1")?.state == .sent)
        #expect(try await store.journalEntry(key: "k1")?.state == .intent)
    }
}
