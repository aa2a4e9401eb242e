import FileSafety
import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

@testable import Keychain

@Suite struct FileSafetyTests {
    /// A created key file, its lock file and every rewrite are mode 0600.
    @Test func createdPrivate() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        #expect(try Support.mode(store.path) == 0o600)
        #expect(try Support.mode(store.path + ".lock") == 0o600)
        try store.add(name: "alice", key: Support.fakeKey("A"), now: Support.t0)
        #expect(try Support.mode(store.path) == 0o600)
    }

    /// A key file readable or writable by group or others is refused with the chmod that fixes it.
    @Test(arguments: [0o644, 0o640, 0o604, 0o620, 0o602, 0o660])
    func looseModeRefused(mode: Int) throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try Support.chmod(store.path, mode)
        let error = Support.keychainError { _ = try store.read() }
        #expect(error == .insecurePermissions(path: store.path, mode: UInt32(mode), what: "keychain"))
        #expect(error?.description.contains("chmod 600 \(store.path)") == true)
        #expect(Support.keychainError { try store.add(name: "a", key: Support.fakeKey("A"), now: Support.t0) } == error)
    }

    /// 0400 (read-only for the owner) is fine for reading.
    @Test func ownerReadOnlyAccepted() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try Support.chmod(store.path, 0o400)
        #expect(try store.read().generation == 1)
    }

    /// The chmod hint quotes a path with spaces so it can be pasted.
    @Test func chmodHintQuoted() {
        let error = KeychainError.insecurePermissions(path: "/tmp/my keys", mode: 0o644, what: "keychain")
        #expect(error.description.hasSuffix("chmod 600 '/tmp/my keys'"))
    }

    /// A file over the 1 MiB cap is refused without being decrypted.
    @Test func sizeCapped() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: store.path))
        bytes.append(Data(count: KeychainStore.maximumFileSize))
        try bytes.write(to: URL(fileURLWithPath: store.path))
        try Support.chmod(store.path, 0o600)
        #expect(
            Support.keychainError { _ = try store.read() }
                == .fileTooLarge(path: store.path, size: bytes.count, limit: KeychainStore.maximumFileSize))
    }

    /// A directory or a missing file is reported as such.
    @Test func notARegularFileOrMissing() throws {
        let dir = try TemporaryDirectory(prefix: "keychain-test")
        defer { dir.remove() }
        try FileManager.default.createDirectory(at: dir.file("d"), withIntermediateDirectories: false)
        try Support.chmod(dir.file("d").path, 0o700)
        let asDirectory = KeychainStore(path: dir.file("d").path, passphrase: Support.passphrase)
        #expect(Support.keychainError { _ = try asDirectory.read() } == .notARegularFile(path: dir.file("d").path))
        let missing = KeychainStore(path: dir.file("none").path, passphrase: Support.passphrase)
        #expect(Support.keychainError { _ = try missing.read() } == .fileNotFound(path: dir.file("none").path))
    }

    /// A write interrupted at any step before the rename leaves the previous file intact and
    /// openable, and leaves no temp file behind.
    @Test(arguments: [AtomicFile.Step.tempCreated, .tempWritten, .tempSynced, .beforeRename])
    func crashBeforeRenameKeepsOldFile(step: AtomicFile.Step) throws {
        struct SimulatedCrash: Error {}
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try store.add(name: "alice", key: Support.fakeKey("A"), now: Support.t0)
        let before = try Data(contentsOf: URL(fileURLWithPath: store.path))
        let crashing = KeychainStore(
            path: store.path, passphrase: { Support.passphrase },
            writeHook: { if $0 == step { throw SimulatedCrash() } })
        #expect(throws: SimulatedCrash.self) {
            try crashing.add(name: "bob", key: Support.fakeKey("B"), now: Support.t1)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == before)
        let contents = try store.read()
        #expect(contents.entries.map(\.name) == ["alice"])
        #expect(contents.generation == 2)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    /// A crash after the rename leaves the new file complete.
    @Test func crashAfterRenameHasNewFile() throws {
        struct SimulatedCrash: Error {}
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        let crashing = KeychainStore(
            path: store.path, passphrase: { Support.passphrase },
            writeHook: { if $0 == .renamed { throw SimulatedCrash() } })
        #expect(throws: SimulatedCrash.self) {
            try crashing.add(name: "bob", key: Support.fakeKey("B"), now: Support.t1)
        }
        #expect(try store.read().entries.map(\.name) == ["bob"])
    }

    /// A temp file abandoned by a killed writer (never renamed) changes nothing for readers
    /// or the next writer.
    @Test func abandonedTempFileIgnored() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        let stale = dir.file(".keys.moltipass.tmp-deadbeef0000")
        try Data("half a file".utf8).write(to: stale)
        try store.add(name: "alice", key: Support.fakeKey("A"), now: Support.t0)
        #expect(try store.read().entries.map(\.name) == ["alice"])
    }

    /// Concurrent writers, each with its own descriptors on its own thread, all land: the
    /// lock serialises read-modify-write (without it, updates would be lost).
    @Test func concurrentAddsAllLand() async throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        let writers = 4
        let perWriter = 8
        let failures = Collector()
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    await Self.onThread {
                        let own = KeychainStore(path: store.path, passphrase: Support.passphrase)
                        for index in 0..<perWriter {
                            do {
                                try own.add(name: "w\(writer)-\(index)", key: Support.fakeKey("W"), now: Support.t0)
                            } catch {
                                failures.append("\(error)")
                            }
                        }
                    }
                }
            }
        }
        #expect(failures.all == [])
        let contents = try store.read()
        #expect(contents.entries.count == writers * perWriter)
        #expect(contents.generation == UInt64(1 + writers * perWriter))
    }

    /// Runs blocking work on its own thread, off the cooperative pool.
    static func onThread(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                body()
                continuation.resume()
            }.start()
        }
    }
}
