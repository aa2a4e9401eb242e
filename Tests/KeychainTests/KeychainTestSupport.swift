import FileSafety
import Foundation
import MoltbookAPI
import MoltipassTesting
import Synchronization

@testable import Keychain

/// Shared scaffolding: temp key files sealed with the instant test parameters, fixed instants.
enum Support {
    /// A fixed instant: 2026-01-30T12:00:00Z.
    static let t0 = Date(timeIntervalSince1970: 1_769_774_400)
    /// One hour after `t0`.
    static let t1 = t0.addingTimeInterval(3600)

    static let passphrase = Passphrase("test passphrase, not a secret")

    /// An obviously fake key.
    static func fakeKey(_ tag: String) -> APIKey { APIKey("moltbook_sk_TEST\(tag)000000000000000000") }

    /// A fresh temp directory and a new empty key file in it (tiny scrypt).
    static func newStore(
        cipher: KeychainCipher = .chaCha20Poly1305, hook: AtomicFile.Hook? = nil
    ) throws -> (TemporaryDirectory, KeychainStore) {
        let dir = try TemporaryDirectory(prefix: "keychain-test")
        let path = dir.file("keys.moltipass").path
        try KeychainStore.create(at: path, passphrase: passphrase, scrypt: .insecureTestOnly, cipher: cipher)
        return (dir, KeychainStore(path: path, passphrase: { passphrase }, writeHook: hook))
    }

    /// Runs `body` and returns the `KeychainError` it threw (nil when it did not throw one).
    static func keychainError(_ body: () throws -> Void) -> KeychainError? {
        do {
            try body()
            return nil
        } catch let error as KeychainError {
            return error
        } catch {
            return nil
        }
    }

    /// The permission bits of `path`.
    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    static func chmod(_ path: String, _ mode: Int) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }
}

/// Strings gathered from several threads.
final class Collector: Sendable {
    private let items = Mutex<[String]>([])

    func append(_ item: String) { items.withLock { $0.append(item) } }

    var all: [String] { items.withLock { $0 } }
}
