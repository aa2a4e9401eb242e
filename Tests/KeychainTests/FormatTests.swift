import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

@testable import Keychain

@Suite struct FormatTests {
    /// A file sealed and read back yields the same entries, for both ciphers.
    @Test(arguments: KeychainCipher.allCases)
    func roundTrip(cipher: KeychainCipher) throws {
        let (dir, store) = try Support.newStore(cipher: cipher)
        defer { dir.remove() }
        let metadata = KeychainEntry.Metadata(
            agentID: "a-1", claimURL: "https://www.moltbook.com/claim/x", verificationCode: "reef-X4B2",
            claimStatus: .pendingClaim)
        try store.add(name: "alice", key: Support.fakeKey("A"), metadata: metadata, now: Support.t0)
        let contents = try KeychainStore(path: store.path, passphrase: Support.passphrase).read()
        #expect(contents.cipher == cipher)
        #expect(contents.entries.map(\.name) == ["alice"])
        #expect(contents.entry(named: "alice")?.metadata == metadata)
        #expect(contents.entry(named: "alice")?.createdAt == Support.t0)
        #expect(try contents.key(for: "alice") == Support.fakeKey("A"))
    }

    /// The header is laid out byte for byte as docs/keychain-format.md says.
    @Test func headerLayout() throws {
        let header = KeychainHeader(
            scrypt: ScryptParameters(log2N: 4, r: 1, p: 2), salt: Data(repeating: 0xAA, count: 16),
            cipher: .aes256GCM, nonce: Data(repeating: 0xBB, count: 12), generation: 0x0102)
        var expected = Data("MPKCHAIN".utf8)
        expected += [1, 1, 4, 1, 2, 16] + [UInt8](repeating: 0xAA, count: 16) + [2]
        expected += [UInt8](repeating: 0xBB, count: 12) + [0, 0, 0, 0, 0, 0, 1, 2]
        #expect(header.encoded == expected)
        let (parsed, length) = try KeychainHeader.parse(expected + Data([9, 9]), path: "x")
        #expect(parsed == header)
        #expect(length == expected.count)
    }

    /// The ciphertext hides entry names and keys; the plaintext is padded to 256-byte blocks.
    @Test func namesAndKeysAreNotVisible() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try store.add(name: "visible_name", key: Support.fakeKey("B"), now: Support.t0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store.path))
        #expect(bytes.range(of: Data("visible_name".utf8)) == nil)
        #expect(bytes.range(of: Data("moltbook_sk".utf8)) == nil)
        let headerLength = Support.headerLength
        #expect((bytes.count - headerLength - 16) % StoredPayload.paddingBlock == 0)
    }

    /// A wrong passphrase gives the one error, worded as the issue says.
    @Test func wrongPassphrase() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try store.add(name: "alice", key: Support.fakeKey("A"), now: Support.t0)
        let error = Support.keychainError {
            _ = try KeychainStore(path: store.path, passphrase: Passphrase("nope")).read()
        }
        #expect(error == .wrongPassphraseOrModified(path: store.path))
        #expect(error?.description.hasPrefix("cannot open keychain: wrong passphrase or the file was modified") == true)
    }

    /// A crafted header asking for log2 N = 40 is refused at once, without deriving.
    @Test func absurdWorkFactorRefusedBeforeDeriving() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: store.path))
        bytes[10] = 40
        try bytes.write(to: URL(fileURLWithPath: store.path))
        let started = ContinuousClock.now
        let error = Support.keychainError { _ = try store.read() }
        #expect(started.duration(to: .now) < .milliseconds(500))
        guard case .kdfParametersOutOfBounds(_, let detail) = error else {
            Issue.record("expected the KDF bounds error, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("log2 N = 40"))
    }

    /// Each bound is enforced: r, p, memory and total work, as well as N.
    @Test(arguments: [
        ScryptParameters(log2N: 21, r: 1, p: 1), ScryptParameters(log2N: 0, r: 1, p: 1),
        ScryptParameters(log2N: 4, r: 33, p: 1), ScryptParameters(log2N: 4, r: 0, p: 1),
        ScryptParameters(log2N: 4, r: 1, p: 17), ScryptParameters(log2N: 4, r: 1, p: 0),
        ScryptParameters(log2N: 20, r: 16, p: 1), ScryptParameters(log2N: 19, r: 8, p: 16),
    ])
    func boundsEnforced(parameters: ScryptParameters) throws {
        #expect(parameters.boundsViolation != nil)
        let dir = try TemporaryDirectory(prefix: "keychain-test")
        defer { dir.remove() }
        let error = Support.keychainError {
            try KeychainStore.create(at: dir.file("k").path, passphrase: Support.passphrase, scrypt: parameters)
        }
        guard case .invalidKDFParameters = error else {
            Issue.record("expected invalidKDFParameters, got \(String(describing: error))")
            return
        }
    }

    /// The default parameters are within bounds and strong (at least age's N = 2^18, r = 8).
    @Test func defaultIsStrongAndAccepted() {
        #expect(ScryptParameters.strong.boundsViolation == nil)
        #expect(ScryptParameters.strong.log2N >= 18 && ScryptParameters.strong.r >= 8)
    }

    /// Unknown version, KDF and cipher ids are each refused with their own message.
    @Test func unknownIdentifiersRefused() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        let original = try Data(contentsOf: URL(fileURLWithPath: store.path))
        let cases: [(Int, UInt8, KeychainError)] = [
            (8, 3, .unsupportedVersion(path: store.path, version: 3)),
            (9, 7, .unsupportedKDF(path: store.path, id: 7)),
            (14 + 32, 9, .unsupportedCipher(path: store.path, id: 9)),
        ]
        for (offset, value, expected) in cases {
            var bytes = original
            bytes[offset] = value
            try bytes.write(to: URL(fileURLWithPath: store.path))
            #expect(Support.keychainError { _ = try store.read() } == expected)
        }
    }

    /// A file that is not a keychain at all is named as such.
    @Test func notAKeychain() throws {
        let dir = try TemporaryDirectory(prefix: "keychain-test")
        defer { dir.remove() }
        let path = dir.file("k").path
        try Data("{\"api_key\": \"x\"}".utf8).write(to: URL(fileURLWithPath: path))
        try Support.chmod(path, 0o600)
        let error = Support.keychainError { _ = try KeychainStore(path: path, passphrase: Support.passphrase).read() }
        #expect(error == .notAKeychain(path: path))
    }
}

extension Support {
    /// Header length of files made by `newStore` (32-byte salt).
    static let headerLength = 8 + 1 + 1 + 4 + 32 + 1 + 12 + 8
}
