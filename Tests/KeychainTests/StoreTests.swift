import Foundation
import MoltbookAPI
import MoltipassTesting
import Synchronization
import Testing

@testable import Keychain

@Suite struct StoreTests {
    /// A new file is generation 1 and every write adds one.
    @Test func generationCounts() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        #expect(try store.read().generation == 1)
        try store.add(name: "a", key: Support.fakeKey("A"), now: Support.t0)
        try store.add(name: "b", key: Support.fakeKey("B"), now: Support.t0)
        try store.remove(name: "a")
        #expect(try store.read().generation == 4)
    }

    /// Adding an existing name without `replace` is refused and leaves the old key.
    @Test func existingNameNeedsReplace() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try store.add(name: "alice", key: Support.fakeKey("OLD"), now: Support.t0)
        let error = Support.keychainError { try store.add(name: "alice", key: Support.fakeKey("NEW"), now: Support.t1) }
        #expect(error == .entryExists(name: "alice", path: store.path))
        #expect(error?.description.contains("--replace") == true)
        #expect(try store.key(for: "alice") == Support.fakeKey("OLD"))
    }

    /// `replace: true` swaps the key, keeps `createdAt` and moves `updatedAt`.
    @Test func replaceKeepsCreatedAt() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try store.add(name: "alice", key: Support.fakeKey("OLD"), now: Support.t0)
        let contents = try store.add(name: "alice", key: Support.fakeKey("NEW"), replace: true, now: Support.t1)
        #expect(try contents.key(for: "alice") == Support.fakeKey("NEW"))
        #expect(contents.entry(named: "alice")?.createdAt == Support.t0)
        #expect(contents.entry(named: "alice")?.updatedAt == Support.t1)
        #expect(try store.key(for: "alice") == Support.fakeKey("NEW"))
    }

    /// Times are stored in whole seconds.
    @Test func timesAreWholeSeconds() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try store.add(name: "alice", key: Support.fakeKey("A"), now: Support.t0.addingTimeInterval(0.75))
        #expect(try store.read().entry(named: "alice")?.createdAt == Support.t0)
    }

    /// Remove deletes one entry; removing a missing one is `entryNotFound`.
    @Test func remove() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try store.add(name: "alice", key: Support.fakeKey("A"), now: Support.t0)
        try store.add(name: "bob", key: Support.fakeKey("B"), now: Support.t0)
        #expect(try store.remove(name: "alice").entries.map(\.name) == ["bob"])
        #expect(
            Support.keychainError { try store.remove(name: "alice") } == .entryNotFound(name: "alice", path: store.path)
        )
        #expect(
            Support.keychainError { _ = try store.key(for: "alice") } == .entryNotFound(name: "alice", path: store.path)
        )
    }

    /// Metadata updates change the metadata and `updatedAt`, not the key.
    @Test func updateMetadata() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try store.add(
            name: "alice", key: Support.fakeKey("A"), metadata: .init(claimStatus: .pendingClaim), now: Support.t0)
        let contents = try store.updateMetadata(name: "alice", now: Support.t1) { $0.claimStatus = .claimed }
        #expect(contents.entry(named: "alice")?.metadata.claimStatus == .claimed)
        #expect(contents.entry(named: "alice")?.updatedAt == Support.t1)
        #expect(try store.read().entry(named: "alice")?.metadata.claimStatus == .claimed)
        #expect(try store.key(for: "alice") == Support.fakeKey("A"))
    }

    /// `changePassphrase` re-encrypts: the new passphrase opens it with all entries and a new
    /// salt, the old one no longer does, and the same store keeps working.
    @Test func passwdRoundTrip() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try store.add(name: "alice", key: Support.fakeKey("A"), now: Support.t0)
        let before = try Data(contentsOf: URL(fileURLWithPath: store.path))
        let newPassphrase = Passphrase("a different test passphrase")
        try store.changePassphrase(to: newPassphrase)
        let after = try Data(contentsOf: URL(fileURLWithPath: store.path))
        #expect(before[14..<46] != after[14..<46])
        let reopened = KeychainStore(path: store.path, passphrase: newPassphrase)
        #expect(try reopened.key(for: "alice") == Support.fakeKey("A"))
        #expect(try reopened.read().generation == 3)
        let old = KeychainStore(path: store.path, passphrase: Support.passphrase)
        #expect(Support.keychainError { _ = try old.read() } == .wrongPassphraseOrModified(path: store.path))
        try store.add(name: "bob", key: Support.fakeKey("B"), now: Support.t1)
        #expect(try reopened.read().entries.map(\.name) == ["alice", "bob"])
    }

    /// The passphrase is not asked for until a key is needed, and only once.
    @Test func passphraseResolvedLazilyOnce() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try store.add(name: "alice", key: Support.fakeKey("A"), now: Support.t0)
        let calls = Mutex(0)
        let lazy = KeychainStore(path: store.path) {
            calls.withLock { $0 += 1 }
            return Support.passphrase
        }
        #expect(calls.withLock { $0 } == 0)
        #expect(try lazy.key(for: "alice") == Support.fakeKey("A"))
        #expect(try lazy.key(for: "alice") == Support.fakeKey("A"))
        #expect(calls.withLock { $0 } == 1)
    }

    /// Invalid names and unusable keys are refused before the file is touched.
    @Test(arguments: ["", "has space", "new\nline", String(repeating: "x", count: 65), "ünïcode"])
    func invalidNames(name: String) throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        #expect(
            Support.keychainError { try store.add(name: name, key: Support.fakeKey("A"), now: Support.t0) }
                == .invalidEntryName(name: name))
        #expect(try store.read().generation == 1)
    }

    /// A key with a space or an empty key is refused, and the message does not show it.
    @Test func unusableKey() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        let error = Support.keychainError {
            try store.add(name: "alice", key: APIKey("moltbook_sk_SPACE IN KEY"), now: Support.t0)
        }
        #expect(error == .unusableKey(name: "alice"))
        #expect(error?.description.contains("SPACE") == false)
    }

    /// `create` refuses to overwrite an existing file and makes missing parents 0700.
    @Test func createRules() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        #expect(
            Support.keychainError { try KeychainStore.create(at: store.path, passphrase: Support.passphrase) }
                == .alreadyExists(path: store.path))
        let nested = dir.file("a/b/keys").path
        try KeychainStore.create(at: nested, passphrase: Support.passphrase, scrypt: .insecureTestOnly)
        #expect(try Support.mode(dir.file("a/b").path) == 0o700)
        #expect(
            Support.keychainError {
                try KeychainStore.create(at: dir.file("c").path, passphrase: Passphrase(""), scrypt: .insecureTestOnly)
            } == .emptyPassphrase(source: "the caller"))
    }

    /// Descriptions of keys, passphrases, entries, contents and every error case never
    /// contain the key or the passphrase.
    @Test func nothingPrintsSecrets() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        let key = Support.fakeKey("SECRET")
        let contents = try store.add(name: "alice", key: key, now: Support.t0)
        let texts = [
            "\(key)", "\(Support.passphrase)", String(reflecting: Support.passphrase), "\(contents)",
            String(reflecting: contents), "\(contents.entries)", "\(store)",
        ]
        for text in texts {
            #expect(!text.contains("SECRET"))
            #expect(!text.contains("not a secret"))
        }
        #expect(contents.entry(named: "alice")?.keyFingerprint == key.fingerprint)
    }
}
