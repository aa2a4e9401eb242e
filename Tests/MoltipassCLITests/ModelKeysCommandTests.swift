import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// `moltipass keys add|list|remove --model`: model keys (issue 21) through the built binary in a
/// temp HOME, keys always on stdin, never in argv, stdout or stderr.
@Suite("moltipass keys --model")
struct ModelKeysCommandTests {
    static let modelKey = "sk-TESTmodelKEY0not0real0000000000"
    static let otherModelKey = "sk-TESTotherMODEL0not0real00000000"
    static let agentKey = "moltbook_sk_TESTagentKEY0123456789abcdefghij"

    /// The fingerprint `keys` commands show for `key` (SHA-256, first 8 hex digits).
    static func fingerprint(_ key: String) -> String { APIKey(key).fingerprint }

    /// add --model prints name and fingerprint only; list shows model keys in their own section
    /// (table) or with `kind: model` (JSON, no claim status); an agent and a model key share a
    /// name without touching each other; remove --model removes only the model key, and remove
    /// without it only the agent.
    @Test func addListRemove() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        try await home.initKeychain()

        let added = try await home.run(["keys", "add", "--model", "ollama"], stdin: Self.modelKey + "\n")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout == "added model key ollama (key \(Self.fingerprint(Self.modelKey)))\n")
        #expect(try await home.add("reef_scout", key: Self.agentKey).status == 0)
        let twin = try await home.run(["keys", "add", "--model", "reef_scout"], stdin: Self.otherModelKey)
        #expect(twin.status == 0, "an agent's name is free for a model key: \(twin.stderr)")

        let table = try await home.run(["keys", "list"])
        #expect(table.status == 0)
        let lines = table.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let modelHeader = try #require(lines.firstIndex { $0.hasPrefix("MODEL KEY") }, "\(table.stdout)")
        #expect(lines[0].hasPrefix("NAME") && lines[0].contains("STATUS"))
        #expect(lines[1].hasPrefix("reef_scout") && lines[1].contains(Self.fingerprint(Self.agentKey)))
        #expect(lines[modelHeader - 1].isEmpty)
        #expect(
            lines[modelHeader + 1].hasPrefix("ollama")
                && lines[modelHeader + 1].contains(Self.fingerprint(Self.modelKey)))
        #expect(
            lines[modelHeader + 2].hasPrefix("reef_scout")
                && lines[modelHeader + 2].contains(Self.fingerprint(Self.otherModelKey)))
        #expect(!lines[(modelHeader + 1)...].joined().contains("unknown"), "model keys have no claim status")

        let json = try await home.listJSON()
        #expect(json.map { $0["name"]?.string } == ["reef_scout", "ollama", "reef_scout"])
        #expect(json.map { $0["kind"]?.string } == ["agent", "model", "model"])
        #expect(json[0]["claim_status"]?.string == "unknown")
        #expect(json[1]["claim_status"] == nil && json[1]["base_url"] == nil)
        #expect(json[1]["key_fingerprint"]?.string == Self.fingerprint(Self.modelKey))
        #expect(json.allSatisfy { $0["api_key"] == nil && $0["key"] == nil })

        let removed = try await home.run(["keys", "remove", "--model", "reef_scout"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout == "removed model key reef_scout\n")
        #expect(
            try await home.listJSON().map { "\($0["kind"]?.string ?? "?"):\($0["name"]?.string ?? "?")" }
                == ["agent:reef_scout", "model:ollama"])
        let again = try await home.run(["keys", "remove", "--model", "reef_scout"])
        #expect(again.status == 12)
        #expect(again.stderr.contains("no model key named reef_scout in \(home.keychainPath)"))
        #expect(again.stderr.contains("moltipass keys add --model reef_scout"))

        let agentRemoveOfModel = try await home.run(["keys", "remove", "ollama"])
        #expect(agentRemoveOfModel.status == 12)
        #expect(agentRemoveOfModel.stderr.contains("no entry named ollama"))
        #expect(try await home.run(["keys", "remove", "reef_scout"]).status == 0)
        #expect(try await home.listJSON().map { $0["name"]?.string } == ["ollama"])
        #expect(try await home.run(["keys", "remove", "--model", "ollama"]).status == 0)
        #expect(try await home.run(["keys", "list"]).stdout == "no entries in \(home.keychainPath)\n")
        home.expectNoLeak(of: [Self.modelKey, Self.otherModelKey, Self.agentKey])
    }

    /// A second model key of a name exits 14 and keeps the first; --replace swaps it.
    @Test func existingNameNeedsReplace() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        try await home.initKeychain()
        #expect(try await home.run(["keys", "add", "--model", "m"], stdin: Self.modelKey).status == 0)
        let refused = try await home.run(["keys", "add", "--model", "m"], stdin: Self.otherModelKey)
        #expect(refused.status == 14)
        #expect(refused.stderr.contains("a model key named m already exists") && refused.stderr.contains("--replace"))
        #expect(try await home.listJSON().first?["key_fingerprint"]?.string == Self.fingerprint(Self.modelKey))
        let replaced = try await home.run(["keys", "add", "--model", "m", "--replace"], stdin: Self.otherModelKey)
        #expect(replaced.status == 0)
        #expect(replaced.stdout == "replaced model key m (key \(Self.fingerprint(Self.otherModelKey)))\n")
        #expect(try await home.listJSON().first?["key_fingerprint"]?.string == Self.fingerprint(Self.otherModelKey))
        home.expectNoLeak(of: [Self.modelKey, Self.otherModelKey])
    }

    /// Any printable secret without spaces up to 4 KiB is a model key (no Moltbook format, no
    /// server asked); empty, spaced, multi-line, non-ASCII and 4097-byte secrets exit 64 with a
    /// message that does not echo them; --base-url is refused before the key is read.
    @Test func acceptedAndRefusedSecrets() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        try await home.initKeychain()
        let longest = String(repeating: "k", count: 4096)
        let accepted = ["x", "ollama", "sk-proj-AbC_123.~!@#$%^&*()", longest + "\n", "  padded\r\n"]
        for (index, secret) in accepted.enumerated() {
            let result = try await home.run(["keys", "add", "--model", "m\(index)"], stdin: secret, recorded: false)
            #expect(result.status == 0, "\(secret.prefix(20)): \(result.stderr)")
            #expect(result.stdout.contains(Self.fingerprint(secret)))
        }
        let refused = [
            "", "\n", "two words", "line1\nline2", "tab\there", "caf\u{E9}-key", String(repeating: "k", count: 4097),
        ]
        for secret in refused {
            let result = try await home.run(["keys", "add", "--model", "bad"], stdin: secret)
            #expect(result.status == 64, "\(secret.prefix(20)): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            if secret.count > 4096 {
                #expect(result.stderr.contains("4096"))
            } else {
                #expect(result.stderr.contains("no usable model key for bad"), "\(result.stderr)")
                #expect(result.stderr.contains("keys add --model bad < FILE"))
            }
        }
        let withURL = try await home.run(
            ["keys", "add", "--model", "bad", "--base-url", "http://127.0.0.1:1/v1"], stdin: Self.modelKey)
        #expect(withURL.status == 64)
        #expect(withURL.stderr.contains("--base-url does not apply to a model key"))
        let inArgv = try await home.run(["keys", "add", "--model", "bad", "an-extra-argument"], stdin: Self.modelKey)
        #expect(inArgv.status == 64, "there is no way to pass a key in argv")
        #expect(try await home.listJSON().compactMap { $0["name"]?.string } == accepted.indices.map { "m\($0)" })
        home.expectNoLeak(of: [Self.modelKey, "two words", "line1", "tab\there", "caf\u{E9}-key", "sk-proj-AbC"])
    }

    /// `--json` on add and remove --model: exactly the documented fields, `kind: model`, the
    /// fingerprint, never the key.
    @Test func jsonReports() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        try await home.initKeychain()
        let documented = documentedFields(table: "`--json` field", in: try Readme.section("Keychain"))
        let fields: Set = ["result", "keychain", "name", "kind", "key_fingerprint"]
        let added = try await home.run(["keys", "add", "--model", "ollama", "--json"], stdin: Self.modelKey)
        #expect(added.status == 0, "\(added.stderr)")
        let addedObject = try reportObject(added, fields: fields, documented: documented)
        #expect(addedObject["result"]?.string == "added")
        #expect(addedObject["kind"]?.string == "model")
        #expect(addedObject["name"]?.string == "ollama")
        #expect(addedObject["key_fingerprint"]?.string == Self.fingerprint(Self.modelKey))
        #expect(addedObject["keychain"]?.string == home.keychainPath)
        let listed = try #require(try await home.listJSON().first?.object)
        #expect(Set(listed.keys) == ["name", "kind", "key_fingerprint", "created_at", "updated_at"])
        #expect(Set(listed.keys).isSubset(of: documented), "undocumented: \(listed.keys)")

        let removed = try await home.run(["keys", "remove", "--model", "ollama", "--json"])
        #expect(removed.status == 0, "\(removed.stderr)")
        let removedObject = try reportObject(removed, fields: fields, documented: documented)
        #expect(removedObject["result"]?.string == "removed")
        #expect(removedObject["kind"]?.string == "model")
        #expect(removedObject["key_fingerprint"]?.string == Self.fingerprint(Self.modelKey))
        home.expectNoLeak(of: [Self.modelKey])
    }

    /// A model key named like an agent is invisible to every agent command: export, verify and
    /// claim find no entry (exit 12, nothing on stdout, no request to the sandbox), and `run`
    /// of a recipe for that agent never sends the model key.
    @Test func agentCommandsNeverSeeModelKeys() async throws {
        let fixture = try await RunFixture.start()
        let home = fixture.home
        let stored = try await home.run(["keys", "add", "--model", "reef_scout"], stdin: Self.modelKey)
        #expect(stored.status == 0, "\(stored.stderr)")

        for arguments in [
            ["keys", "export", "reef_scout", "--reveal"], ["keys", "verify", "reef_scout", "--base-url", fixture.base],
            ["claim", "reef_scout", "--base-url", fixture.base],
        ] {
            let result = try await home.run(arguments)
            #expect(result.status == 12, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments)")
            #expect(result.stderr.contains("no entry named reef_scout"), "\(arguments): \(result.stderr)")
        }
        #expect(try await fixture.counter("requests_total") == 0)

        try fixture.queue(count: 1)
        let recipe = try fixture.postingRecipe("reef_scout")
        let run = try await fixture.run(["--once", recipe], at: RunFixture.t0)
        #expect(run.status == 12, "no agent key: the run cannot post\n\(run.stdout)\n\(run.stderr)")
        #expect(run.stderr.contains("no entry named reef_scout"), "\(run.stderr)")
        #expect(try await fixture.counter("requests_total") == 0, "the model key never reached Moltbook")

        // Registering the agent afterwards stores its own key next to the model key.
        let registered = try await home.run([
            "register", "reef_scout", "--description", "x", "--base-url", fixture.base,
        ])
        #expect(registered.status == 0, "\(registered.stderr)")
        #expect(try await fixture.counter("requests_total") > 0, "the counter sees requests")
        #expect(try await home.listJSON().map { $0["kind"]?.string } == ["agent", "model"])
        home.expectNoLeak(of: [Self.modelKey])
        await fixture.stop()
    }
}
