import Foundation
import Keychain
import MoltbookAPI
import MoltipassCommands
import MoltipassTesting
import Testing

/// `KeysSession.modelKey(named:)`, what a generator calls for its model server's key (issue 21):
/// real key files, a real passphrase file, the errors a person reads.
@Suite struct ModelKeySessionTests {
    static let secret = "sk-TESTsession0model0key0not0real"
    static let passphrase = "session test passphrase"

    /// A temp directory with a 0600 passphrase file and, unless `create` is false, a keychain
    /// (tiny scrypt) holding an agent `twin`, a model key `twin` and a model key `ollama`.
    static func setUp(create: Bool = true) throws -> (TemporaryDirectory, keychain: String, passphraseFile: String) {
        let dir = try TemporaryDirectory(prefix: "model-key-session")
        let keychain = dir.file("keychain").path
        let passphraseFile = dir.file("passphrase").path
        try Data((passphrase + "\n").utf8).write(to: URL(fileURLWithPath: passphraseFile))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: passphraseFile)
        if create {
            let store = try KeychainStore.create(
                at: keychain, passphrase: Passphrase(passphrase), scrypt: .insecureTestOnly)
            let now = Date(timeIntervalSince1970: 1_769_774_400)
            try store.add(name: "twin", key: APIKey("moltbook_sk_TESTsessionAGENT000000000"), now: now)
            try store.addModelKey(name: "twin", key: ModelKey("sk-TESTtwin0model"), now: now)
            try store.addModelKey(name: "ollama", key: ModelKey(secret), now: now)
        }
        return (dir, keychain, passphraseFile)
    }

    static func session(_ keychain: String, _ passphraseFile: String?) throws -> KeysSession {
        try KeysSession(keychain: keychain, passphraseFile: passphraseFile, environment: [:], isInteractive: false)
    }

    /// The thrown error as a `KeychainError` (nil when none or another type was thrown).
    static func keychainError(_ body: () async throws -> Void) async -> KeychainError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? KeychainError
        }
    }

    /// The model key comes back by name, redacted when printed; a model key sharing an agent's
    /// name is the model key, never the agent's.
    @Test func returnsTheModelKey() async throws {
        let (dir, keychain, passphraseFile) = try Self.setUp()
        defer { dir.remove() }
        let session = try Self.session(keychain, passphraseFile)
        let key = try await session.modelKey(named: "ollama")
        #expect(key == ModelKey(Self.secret))
        #expect(!"\(key)".contains(Self.secret) && !String(reflecting: key).contains(Self.secret))
        #expect(try await session.modelKey(named: "twin") == ModelKey("sk-TESTtwin0model"))
    }

    /// Nothing is read before the first call, and the passphrase is read once: the session is
    /// built with the passphrase file missing, and the second call works after it is gone again.
    @Test func unlocksLazilyAndOnce() async throws {
        let (dir, keychain, passphraseFile) = try Self.setUp()
        defer { dir.remove() }
        let moved = passphraseFile + ".away"
        try FileManager.default.moveItem(atPath: passphraseFile, toPath: moved)
        let session = try Self.session(keychain, passphraseFile)
        try FileManager.default.moveItem(atPath: moved, toPath: passphraseFile)
        #expect(try await session.modelKey(named: "ollama") == ModelKey(Self.secret))
        try FileManager.default.removeItem(atPath: passphraseFile)
        #expect(try await session.modelKey(named: "twin") == ModelKey("sk-TESTtwin0model"))
    }

    /// No model key of that name, also when an agent has it: `modelKeyNotFound`, whose message
    /// names the command that stores it.
    @Test func missingModelKey() async throws {
        let (dir, keychain, passphraseFile) = try Self.setUp()
        defer { dir.remove() }
        let session = try Self.session(keychain, passphraseFile)
        try session.store.removeModelKey(name: "twin")
        for name in ["twin", "nothing"] {
            let error = await Self.keychainError { _ = try await session.modelKey(named: name) }
            #expect(error == .modelKeyNotFound(name: name, path: keychain))
            #expect(
                error?.description
                    == "no model key named \(name) in \(keychain); store it with `moltipass keys add --model \(name)`")
        }
    }

    /// No keychain, a wrong passphrase, no passphrase source: each its own plain message.
    @Test func unlockFailures() async throws {
        let (dir, keychain, passphraseFile) = try Self.setUp(create: false)
        defer { dir.remove() }
        let missing = await Self.keychainError {
            _ = try await Self.session(keychain, passphraseFile).modelKey(named: "ollama")
        }
        #expect(missing == .fileNotFound(path: keychain))
        #expect(missing?.description.contains("create one with `moltipass keys init`") == true)

        try KeychainStore.create(at: keychain, passphrase: Passphrase("another passphrase"), scrypt: .insecureTestOnly)
        let wrong = await Self.keychainError {
            _ = try await Self.session(keychain, passphraseFile).modelKey(named: "ollama")
        }
        #expect(wrong == .wrongPassphraseOrModified(path: keychain))
        #expect(wrong?.description.contains("wrong passphrase") == true)

        let noSource = await Self.keychainError { _ = try await Self.session(keychain, nil).modelKey(named: "ollama") }
        #expect(noSource == .noPassphraseSource)
    }
}
