import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

@testable import Keychain

/// The frozen vectors in fixtures/keychain/: files sealed once with a known passphrase and
/// parameters, described by vectors.json. If a change to the code breaks these, the format
/// changed: bump the version instead.
@Suite struct FixtureVectorTests {
    struct Vectors: Decodable {
        struct Vector: Decodable {
            var file: String
            /// Absent: 1.
            var formatVersion: UInt8?
            var cipher: String
            var log2N: UInt8
            var r: UInt8
            var p: UInt8
            var generation: UInt64
            var entries: [Entry]

            enum CodingKeys: String, CodingKey {
                case file, cipher, r, p, generation, entries
                case formatVersion = "format_version"
                case log2N = "log2_n"
            }
        }

        struct Entry: Decodable {
            var name: String
            /// `model` for a model key; absent for an agent.
            var kind: String?
            var apiKey: String
            var agentID: String?
            var claimURL: String?
            var verificationCode: String?
            var claimStatus: String?
            var baseURL: String?
            var createdAt: String
            var updatedAt: String

            enum CodingKeys: String, CodingKey {
                case name, kind
                case apiKey = "api_key"
                case agentID = "agent_id"
                case claimURL = "claim_url"
                case verificationCode = "verification_code"
                case claimStatus = "claim_status"
                case baseURL = "base_url"
                case createdAt = "created_at"
                case updatedAt = "updated_at"
            }
        }

        var passphrase: String
        var vectors: [Vector]
    }

    static func vectors() throws -> Vectors {
        try JSONDecoder().decode(Vectors.self, from: Fixtures.data("keychain/vectors.json"))
    }

    /// A private (0600) copy of a vector file: git checks files out 0644, which the reader refuses.
    static func privateCopy(_ name: String, in dir: TemporaryDirectory) throws -> String {
        let path = dir.file(name).path
        try Fixtures.data("keychain/\(name)").write(to: URL(fileURLWithPath: path))
        try Support.chmod(path, 0o600)
        return path
    }

    /// Each frozen vector opens with the known passphrase to exactly the entries in vectors.json:
    /// the version 1 files (written before model keys existed) as agents only, the version 2 file
    /// with an agent and a model key of the same name kept apart.
    @Test func vectorsOpenToExpectedEntries() throws {
        let dir = try TemporaryDirectory(prefix: "keychain-test")
        defer { dir.remove() }
        try Self.expectVectors { try Self.privateCopy($0, in: dir) }
    }

    /// The writer seals what vectors.json describes (into a temporary directory: the committed
    /// vectors are never rewritten): so the writer cannot drift from the vectors unnoticed.
    @Test func writerSealsWhatTheVectorsSay() throws {
        let dir = try TemporaryDirectory(prefix: "keychain-test")
        defer { dir.remove() }
        try FixtureVectorWriter.seal(into: dir.url)
        try Self.expectVectors { dir.file($0).path }
    }

    /// Each vector file (`path(name)`) opens with the known passphrase to exactly the entries in vectors.json.
    static func expectVectors(path: (String) throws -> String) throws {
        let vectors = try Self.vectors()
        #expect(vectors.vectors.count >= 3)
        #expect(vectors.vectors.contains { $0.formatVersion == 2 && $0.entries.contains { $0.kind == "model" } })
        for vector in vectors.vectors {
            let path = try path(vector.file)
            let contents = try KeychainStore(path: path, passphrase: Passphrase(vectors.passphrase)).read()
            #expect(contents.formatVersion == vector.formatVersion ?? 1)
            #expect(contents.cipher.description == vector.cipher)
            #expect(contents.scrypt == ScryptParameters(log2N: vector.log2N, r: vector.r, p: vector.p))
            #expect(contents.generation == vector.generation)
            let agents = vector.entries.filter { $0.kind == nil }
            let models = vector.entries.filter { $0.kind == "model" }
            #expect(agents.count + models.count == vector.entries.count)
            #expect(contents.entries.map(\.name) == agents.map(\.name).sorted())
            #expect(contents.modelEntries.map(\.name) == models.map(\.name).sorted())
            for expected in models {
                let entry = try #require(contents.modelEntry(named: expected.name))
                #expect(try contents.modelKey(named: expected.name) == ModelKey(expected.apiKey))
                #expect(expected.apiKey.hasPrefix("sk-FIXTURE"))
                #expect(entry.kind == .model)
                #expect(entry.metadata == .init())
                #expect(StoredPayload.timestamp(entry.createdAt) == expected.createdAt)
                #expect(StoredPayload.timestamp(entry.updatedAt) == expected.updatedAt)
            }
            for expected in agents {
                let entry = try #require(contents.entry(named: expected.name))
                #expect(try contents.key(for: expected.name) == APIKey(expected.apiKey))
                #expect(expected.apiKey.hasPrefix("moltbook_sk_FIXTURE"))
                #expect(entry.kind == .agent)
                #expect(entry.metadata.agentID == expected.agentID)
                #expect(entry.metadata.claimURL == expected.claimURL)
                #expect(entry.metadata.verificationCode == expected.verificationCode)
                #expect(entry.metadata.claimStatus.rawValue == expected.claimStatus)
                #expect(entry.metadata.baseURL == expected.baseURL)
                #expect(StoredPayload.timestamp(entry.createdAt) == expected.createdAt)
                #expect(StoredPayload.timestamp(entry.updatedAt) == expected.updatedAt)
            }
        }
    }

    /// A frozen vector refuses a wrong passphrase with the one error.
    @Test func vectorWrongPassphrase() throws {
        let vectors = try Self.vectors()
        let dir = try TemporaryDirectory(prefix: "keychain-test")
        defer { dir.remove() }
        let path = try Self.privateCopy(vectors.vectors[0].file, in: dir)
        let store = KeychainStore(path: path, passphrase: Passphrase(vectors.passphrase + "x"))
        #expect(Support.keychainError { _ = try store.read() } == .wrongPassphraseOrModified(path: path))
    }

    /// A frozen vector can be written to (it is a current-format file), keeping its entries.
    @Test func vectorAcceptsWrites() throws {
        let vectors = try Self.vectors()
        let dir = try TemporaryDirectory(prefix: "keychain-test")
        defer { dir.remove() }
        let vector = vectors.vectors[0]
        let path = try Self.privateCopy(vector.file, in: dir)
        let store = KeychainStore(path: path, passphrase: Passphrase(vectors.passphrase))
        let contents = try store.add(name: "newcomer", key: Support.fakeKey("N"), now: Support.t1)
        #expect(contents.generation == vector.generation + 1)
        #expect(try store.read().entries.count == vector.entries.count + 1)
    }
}

/// Writes the vectors. Run with `KEYCHAIN_WRITE_FIXTURES=1` when a vector is added; the output
/// is committed and never regenerated: only vector files missing from fixtures/keychain/ are
/// written.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["KEYCHAIN_WRITE_FIXTURES"] == "1"))
struct FixtureVectorWriter {
    /// Seals the vector files that fixtures/keychain/ lacks into it.
    @Test func write() throws {
        let scratch = try TemporaryDirectory(prefix: "keychain-vectors")
        defer { scratch.remove() }
        try Self.seal(into: scratch.url)
        let fixtures = Fixtures.directory.appendingPathComponent("keychain")
        for vector in try FixtureVectorTests.vectors().vectors {
            let target = fixtures.appendingPathComponent(vector.file)
            guard !FileManager.default.fileExists(atPath: target.path) else { continue }
            try FileManager.default.copyItem(at: scratch.url.appendingPathComponent(vector.file), to: target)
            try Support.chmod(target.path, 0o644)
        }
        try FixtureVectorTests.expectVectors { try FixtureVectorTests.privateCopy($0, in: TemporaryDirectory()) }
    }

    /// Seals every vector file into `directory`.
    static func seal(into directory: URL) throws {
        let passphrase = Passphrase("moltipass fixture passphrase (not a secret)")
        let scrypt = ScryptParameters(log2N: 10, r: 8, p: 1)
        for (file, cipher) in [
            ("vector-chacha20poly1305.moltipass", KeychainCipher.chaCha20Poly1305),
            ("vector-aes256gcm.moltipass", .aes256GCM),
        ] {
            let path = directory.appendingPathComponent(file).path
            try? FileManager.default.removeItem(atPath: path)
            let store = try KeychainStore.create(at: path, passphrase: passphrase, scrypt: scrypt, cipher: cipher)
            try store.add(
                name: "reef_scout", key: APIKey("moltbook_sk_FIXTURE0reefscout0not0a0real0key"),
                metadata: .init(
                    agentID: "7d4c2f0e-0000-4000-8000-000000000001",
                    claimURL: "https://www.moltbook.com/claim/moltbook_claim_FIXTURE01", verificationCode: "reef-X4B2",
                    claimStatus: .pendingClaim),
                now: Support.t0)
            try store.add(
                name: "tide-bot", key: APIKey("moltbook_sk_FIXTURE0tidebot0not0a0real0key"),
                metadata: .init(
                    agentID: "7d4c2f0e-0000-4000-8000-000000000002", baseURL: "http://127.0.0.1:8080/api/v1"),
                now: Support.t0)
            try store.updateMetadata(name: "reef_scout", now: Support.t1) { $0.claimStatus = .claimed }
            try FileManager.default.removeItem(atPath: path + ".lock")
        }
        // Format version 2: an agent and a model key both named reef_scout, and a second model key.
        let path = directory.appendingPathComponent("vector-v2-model-keys.moltipass").path
        try? FileManager.default.removeItem(atPath: path)
        let store = try KeychainStore.create(at: path, passphrase: passphrase, scrypt: scrypt)
        try store.add(
            name: "reef_scout", key: APIKey("moltbook_sk_FIXTURE0reefscout0not0a0real0key"),
            metadata: .init(agentID: "7d4c2f0e-0000-4000-8000-000000000001", claimStatus: .pendingClaim),
            now: Support.t0)
        try store.addModelKey(name: "reef_scout", key: ModelKey("sk-FIXTURE0model0reefscout0not0real"), now: Support.t0)
        try store.addModelKey(name: "local-ollama", key: ModelKey("sk-FIXTURE0ollama0not0real"), now: Support.t0)
        try store.updateMetadata(name: "reef_scout", now: Support.t1) { $0.claimStatus = .claimed }
        try FileManager.default.removeItem(atPath: path + ".lock")
    }
}
