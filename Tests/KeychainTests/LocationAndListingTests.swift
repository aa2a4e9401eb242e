import Foundation
import MoltipassTesting
import Testing

@testable import Keychain

@Suite struct LocationAndListingTests {
    /// The default path prefers MOLTIPASS_KEYCHAIN, then XDG_CONFIG_HOME, then HOME; empty means unset.
    @Test func defaultPath() {
        #expect(
            KeychainLocation.defaultPath(environment: [
                "MOLTIPASS_KEYCHAIN": "/k", "XDG_CONFIG_HOME": "/x", "HOME": "/h",
            ]) == "/k")
        #expect(
            KeychainLocation.defaultPath(environment: ["MOLTIPASS_KEYCHAIN": "", "XDG_CONFIG_HOME": "/x", "HOME": "/h"])
                == "/x/moltipass/keychain")
        #expect(KeychainLocation.defaultPath(environment: ["HOME": "/h"]) == "/h/.config/moltipass/keychain")
        #expect(KeychainLocation.defaultPath(environment: [:]) == nil)
    }

    /// The JSON listing has metadata and the fingerprint, never the key.
    @Test func jsonListingHasNoKey() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        let key = Support.fakeKey("LISTED")
        let contents = try store.add(
            name: "alice", key: key, metadata: .init(agentID: "a-1", claimStatus: .claimed), now: Support.t0)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(contents.entries), as: UTF8.self)
        #expect(!json.contains("LISTED"))
        #expect(json.contains("\"key_fingerprint\":\"\(key.fingerprint)\""))
        #expect(json.contains("\"claim_status\":\"claimed\""))
        #expect(json.contains("\"created_at\":\"2026-01-30T12:00:00Z\""))
    }

    /// A store built on a resolver asks it only when the file is first read.
    @Test func resolverStoreIsLazy() throws {
        let (dir, store) = try Support.newStore()
        defer { dir.remove() }
        try store.add(name: "alice", key: Support.fakeKey("A"), now: Support.t0)
        let noSource = KeychainStore(
            path: store.path, resolver: PassphraseResolver(environment: [:], isInteractive: false))
        #expect(Support.keychainError { _ = try noSource.read() } == .noPassphraseSource)
        let fromEnvironment = KeychainStore(
            path: store.path,
            resolver: PassphraseResolver(
                environment: ["MOLTIPASS_PASSPHRASE": "test passphrase, not a secret"], isInteractive: false))
        #expect(try fromEnvironment.key(for: "alice") == Support.fakeKey("A"))
    }
}
