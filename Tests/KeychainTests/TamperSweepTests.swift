import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

@testable import Keychain

/// age-style sweeps: every single-byte change and every truncation of a small sealed file is
/// rejected, and past the four KDF/cipher id bytes it is rejected with the one error.
@Suite struct TamperSweepTests {
    /// Offsets where a change may legitimately produce a header error instead of the one error:
    /// magic, version, KDF id, the scrypt parameters and salt length, and the cipher id.
    static func headerErrorAllowed(at offset: Int) -> Bool {
        offset < 14 || offset == 14 + 32
    }

    static func sealedFile() throws -> (TemporaryDirectory, KeychainStore, Data) {
        let (dir, store) = try Support.newStore()
        try store.add(name: "alice", key: Support.fakeKey("A"), now: Support.t0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store.path))
        return (dir, store, bytes)
    }

    /// What reading `bytes` as the key file throws (nil if it opened).
    static func outcome(_ bytes: Data, store: KeychainStore) throws -> KeychainError? {
        try bytes.write(to: URL(fileURLWithPath: store.path))
        return Support.keychainError { _ = try KeychainStore(path: store.path, passphrase: Support.passphrase).read() }
    }

    /// Whether `error` is one of the header-structure errors.
    static func isHeaderError(_ error: KeychainError?) -> Bool {
        switch error {
        case .notAKeychain, .malformedHeader, .unsupportedVersion, .unsupportedKDF, .unsupportedCipher,
            .kdfParametersOutOfBounds:
            return true
        default:
            return false
        }
    }

    /// Flipping the low bit, then all bits, of every byte: never opens; the one error except in
    /// the magic/version/id/parameter bytes, where the matching header error is also allowed.
    @Test(arguments: [UInt8(0x01), 0x80, 0xFF])
    func everyByteFlipped(mask: UInt8) throws {
        let (dir, store, original) = try Self.sealedFile()
        defer { dir.remove() }
        #expect(original.count < 600)
        for offset in 0..<original.count {
            var bytes = original
            bytes[offset] ^= mask
            let error = try Self.outcome(bytes, store: store)
            if offset < 8 {
                #expect(error == .notAKeychain(path: store.path), "offset \(offset)")
            } else if Self.headerErrorAllowed(at: offset) {
                #expect(
                    error == .wrongPassphraseOrModified(path: store.path) || Self.isHeaderError(error),
                    "offset \(offset): \(String(describing: error))")
            } else {
                #expect(error == .wrongPassphraseOrModified(path: store.path), "offset \(offset)")
            }
        }
    }

    /// Truncating at every length: a header error inside the header, the one error after it.
    @Test func everyTruncation() throws {
        let (dir, store, original) = try Self.sealedFile()
        defer { dir.remove() }
        for length in 0..<original.count {
            let error = try Self.outcome(original.prefix(length), store: store)
            if length < 8 {
                #expect(error == .notAKeychain(path: store.path), "length \(length)")
            } else if length < Support.headerLength {
                guard case .malformedHeader = error else {
                    Issue.record("length \(length): \(String(describing: error))")
                    continue
                }
            } else {
                #expect(error == .wrongPassphraseOrModified(path: store.path), "length \(length)")
            }
        }
    }

    /// Appending bytes after the tag is tampering too.
    @Test(arguments: [1, 16, 256])
    func trailingBytes(count: Int) throws {
        let (dir, store, original) = try Self.sealedFile()
        defer { dir.remove() }
        let error = try Self.outcome(original + Data(repeating: 0, count: count), store: store)
        #expect(error == .wrongPassphraseOrModified(path: store.path))
    }

    /// The untouched file still opens (the sweep's control case).
    @Test func controlOpens() throws {
        let (dir, store, original) = try Self.sealedFile()
        defer { dir.remove() }
        #expect(try Self.outcome(original, store: store) == nil)
    }
}
