import Crypto
import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

@testable import Keychain

/// Model keys (issue 21): a second namespace in the same file, on real files.
@Suite struct ModelKeyTests {
    static let modelSecret = "sk-TESTmodel0key0not0real0000000000"
    static var modelKey: ModelKey { ModelKey(modelSecret) }

    /// A model key prints, interpolates, reflects and dumps as its fingerprint only.
    @Test func neverPrintsItsValue() {
        let key = Self.modelKey
        var dumped = ""
        dump(key, to: &dumped)
        let shown = [
            key.description, key.debugDescription, "\(key)", String(reflecting: key), dumped,
            "\(Mirror(reflecting: key).children.map { "\($0.label ?? ""): \($0.value)" })", "\(key.bearer)",
        ]
        for text in shown {
            #expect(!text.contains(Self.modelSecret), "leaked in: \(text)")
            #expect(!text.contains("TESTmodel"), "leaked in: \(text)")
            #expect(text.contains(key.fingerprint), "no fingerprint in: \(text)")
        }
        #expect(key.withRawValue { $0 } == Self.modelSecret)
        #expect(key.bearer.withRawValue { $0 } == Self.modelSecret)
    }

    /// Any printable ASCII without spaces up to 4 KiB is a usable model key (no Moltbook prefix
    /// needed); empty, inner whitespace, control or non-ASCII characters, or 4097 bytes are not.
    @Test(arguments: [
        ("sk-abc", true), ("ollama", true), ("x", true), ("  sk-abc\n", true), ("a!#$%&'()*+,./:;<=>?@[]^_`{|}~", true),
        (String(repeating: "k", count: 4096), true), (String(repeating: "k", count: 4097), false), ("", false),
        ("\n", false), ("sk abc", false), ("sk\tabc", false), ("sk\nabc", false), ("sk\u{7F}abc", false),
        ("sk-é", false), ("sk\u{0}abc", false),
    ])
    func usability(raw: String, usable: Bool) {
        #expect(ModelKey(raw).isUsable == usable)
    }

    /// An agent and a model key named alike are two entries: each lookup returns only its kind,
    /// `entries` lists agents only and `modelEntries` model keys only.
    @Test func namespacesAreSeparate() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try store.add(name: "ollama", key: Support.fakeKey("AGENT"), now: Support.t0)
        try store.addModelKey(name: "ollama", key: Self.modelKey, now: Support.t1)
        try store.addModelKey(name: "hosted", key: ModelKey("sk-other"), now: Support.t1)

        let contents = try store.read()
        #expect(try contents.key(for: "ollama") == Support.fakeKey("AGENT"))
        #expect(try contents.modelKey(named: "ollama") == Self.modelKey)
        #expect(try store.modelKey(named: "ollama") == Self.modelKey)
        #expect(contents.entries.map(\.name) == ["ollama"])
        #expect(contents.entries.allSatisfy { $0.kind == .agent })
        #expect(contents.modelEntries.map(\.name) == ["hosted", "ollama"])
        #expect(contents.modelEntries.allSatisfy { $0.kind == .model })
        #expect(contents.entry(named: "ollama")?.keyFingerprint == Support.fakeKey("AGENT").fingerprint)
        #expect(contents.modelEntry(named: "ollama")?.keyFingerprint == Self.modelKey.fingerprint)
        #expect(contents.modelEntry(named: "ollama")?.createdAt == Support.t1)
        #expect(contents.modelEntry(named: "ollama")?.metadata == .init())
    }

    /// A name that only a model key has is unknown to every agent lookup and change, and a name
    /// only an agent has is unknown to every model-key lookup: neither kind's key comes back as
    /// the other's, and the entry of the other kind survives.
    @Test func lookupsNeverCrossKinds() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try store.addModelKey(name: "model-only", key: Self.modelKey, now: Support.t0)
        try store.add(name: "agent-only", key: Support.fakeKey("A"), now: Support.t0)
        let path = store.path
        let contents = try store.read()

        #expect(
            Support.keychainError { _ = try contents.key(for: "model-only") }
                == .entryNotFound(name: "model-only", path: path))
        #expect(contents.entry(named: "model-only") == nil)
        #expect(
            Support.keychainError { try store.remove(name: "model-only") }
                == .entryNotFound(name: "model-only", path: path))
        #expect(
            Support.keychainError { try store.updateMetadata(name: "model-only", now: Support.t1) { _ in } }
                == .entryNotFound(name: "model-only", path: path))

        #expect(
            Support.keychainError { _ = try contents.modelKey(named: "agent-only") }
                == .modelKeyNotFound(name: "agent-only", path: path))
        #expect(contents.modelEntry(named: "agent-only") == nil)
        #expect(
            Support.keychainError { try store.removeModelKey(name: "agent-only") }
                == .modelKeyNotFound(name: "agent-only", path: path))

        let after = try store.read()
        #expect(try after.modelKey(named: "model-only") == Self.modelKey)
        #expect(try after.key(for: "agent-only") == Support.fakeKey("A"))
        #expect(after.generation == contents.generation, "refused changes write nothing")
    }

    /// Removing the model key leaves the agent of the same name, and the other way round.
    @Test func removeTakesOnlyItsKind() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try store.add(name: "twin", key: Support.fakeKey("A"), now: Support.t0)
        try store.addModelKey(name: "twin", key: Self.modelKey, now: Support.t0)
        let withoutModel = try store.removeModelKey(name: "twin")
        #expect(withoutModel.modelEntries.isEmpty)
        #expect(try withoutModel.key(for: "twin") == Support.fakeKey("A"))

        try store.addModelKey(name: "twin", key: Self.modelKey, now: Support.t0)
        let withoutAgent = try store.remove(name: "twin")
        #expect(withoutAgent.entries.isEmpty)
        #expect(try withoutAgent.modelKey(named: "twin") == Self.modelKey)
    }

    /// A second model key of a name needs `replace`, which swaps the key and keeps `createdAt`;
    /// bad names and unusable keys are refused before anything is written.
    @Test func addRules() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try store.addModelKey(name: "ollama", key: Self.modelKey, now: Support.t0)
        let refused = Support.keychainError {
            try store.addModelKey(name: "ollama", key: ModelKey("sk-new"), now: Support.t1)
        }
        #expect(refused == .modelKeyExists(name: "ollama", path: store.path))
        #expect(refused?.description.contains("--replace") == true)
        #expect(try store.modelKey(named: "ollama") == Self.modelKey)

        let replaced = try store.addModelKey(name: "ollama", key: ModelKey("sk-new"), replace: true, now: Support.t1)
        #expect(try replaced.modelKey(named: "ollama") == ModelKey("sk-new"))
        #expect(replaced.modelEntry(named: "ollama")?.createdAt == Support.t0)
        #expect(replaced.modelEntry(named: "ollama")?.updatedAt == Support.t1)

        let generation = replaced.generation
        #expect(
            Support.keychainError { try store.addModelKey(name: "bad name", key: Self.modelKey, now: Support.t1) }
                == .invalidEntryName(name: "bad name"))
        for bad in ["", "two words", String(repeating: "k", count: 4097)] {
            #expect(
                Support.keychainError { try store.addModelKey(name: "m", key: ModelKey(bad), now: Support.t1) }
                    == .unusableModelKey(name: "m"))
        }
        #expect(try store.read().generation == generation)
        #expect(!KeychainError.unusableModelKey(name: "m").description.contains("two words"))
    }

    /// The file is format version 1 while it holds agents only and 2 while it holds a model key
    /// (byte 8 of the file), back to 1 when the last model key goes; a passphrase change keeps
    /// the model keys and the version.
    @Test func formatVersionFollowsTheEntries() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        func versionByte() throws -> UInt8 { try Data(contentsOf: URL(fileURLWithPath: store.path))[8] }
        try store.add(name: "agent", key: Support.fakeKey("A"), now: Support.t0)
        #expect(try versionByte() == 1)
        #expect(try store.read().formatVersion == 1)

        try store.addModelKey(name: "m1", key: Self.modelKey, now: Support.t0)
        try store.addModelKey(name: "m2", key: ModelKey("sk-two"), now: Support.t0)
        #expect(try versionByte() == 2)
        #expect(try store.read().formatVersion == 2)
        try store.updateMetadata(name: "agent", now: Support.t1) { $0.claimStatus = .claimed }
        #expect(try versionByte() == 2)

        try store.changePassphrase(to: Passphrase("another one"), scrypt: .insecureTestOnly)
        #expect(try versionByte() == 2)
        let reopened = KeychainStore(path: store.path, passphrase: Passphrase("another one"))
        #expect(try reopened.modelKey(named: "m2") == ModelKey("sk-two"))

        try reopened.removeModelKey(name: "m1")
        #expect(try versionByte() == 2)
        try reopened.removeModelKey(name: "m2")
        #expect(try versionByte() == 1)
        #expect(try reopened.read().entries.map(\.name) == ["agent"])
    }

    /// Payloads a correct writer never produces are refused as a broken entry list, naming no
    /// key: a model key in a version 1 file, an unknown kind, an agent without a claim status, an
    /// unusable model key, and two model keys of one name. `"kind": "agent"` spelled out and a
    /// version 2 file without model keys are fine.
    @Test func strictPayloads() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        let times = #""created_at":"2026-01-30T12:00:00Z","updated_at":"2026-01-30T12:00:00Z""#
        let agent =
            #"{"name":"a","api_key":"moltbook_sk_TESTx0000000000","claim_status":"unknown","#
            + times + "}"
        func model(_ name: String, _ key: String = "sk-TESTstrict") -> String {
            #"{"name":""# + name + #"","kind":"model","api_key":""# + key + #"","# + times + "}"
        }
        let refused: [(UInt8, String, String)] = [
            (1, "[" + agent + "," + model("m") + "]", "model key m in a format version 1 file"),
            (2, #"[{"name":"m","kind":"prompt","api_key":"sk-x","# + times + "}]", "unknown entry kind"),
            (2, #"[{"name":"a","api_key":"moltbook_sk_TESTx0000000000","# + times + "}]", "no claim_status in a"),
            (2, "[" + model("m", "sk bad") + "]", "unusable key in m"),
            (2, "[" + model("m") + "," + model("m", "sk-other") + "]", "invalid or duplicate entry name"),
        ]
        for (version, entries, detail) in refused {
            try Self.sealRaw(#"{"entries":"# + entries + "}", version: version, at: store.path)
            let error = Support.keychainError { _ = try store.read() }
            #expect(error == .corruptEntries(path: store.path, detail: detail), "\(entries)")
            #expect(error?.description.contains("sk-TESTstrict") == false)
        }

        let explicit =
            #"{"name":"a","kind":"agent","api_key":"moltbook_sk_TESTx0000000000","claim_status":"claimed","#
            + times + "}"
        try Self.sealRaw(#"{"entries":["# + explicit + "]}", version: 2, at: store.path)
        let contents = try store.read()
        #expect(contents.formatVersion == 2)
        #expect(contents.entries.map(\.name) == ["a"] && contents.modelEntries.isEmpty)
        #expect(contents.entry(named: "a")?.metadata.claimStatus == .claimed)
    }

    /// Seals `json` as the payload of a file at `path` under `version`, with the test
    /// passphrase and parameters, as a writer outside this code would.
    static func sealRaw(_ json: String, version: UInt8, at path: String) throws {
        var header = KeychainCodec.freshHeader(scrypt: .insecureTestOnly, cipher: .chaCha20Poly1305, generation: 9)
        header.version = version
        let key = try KeychainCodec.deriveKey(Support.passphrase, scrypt: header.scrypt, salt: header.salt)
        let sealed = try header.cipher.seal(
            Data(json.utf8), key: key, nonce: header.nonce, associatedData: header.encoded)
        try (header.encoded + sealed).write(to: URL(fileURLWithPath: path))
        try Support.chmod(path, 0o600)
    }
}
