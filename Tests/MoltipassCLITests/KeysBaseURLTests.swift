import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// The base URL a keychain entry remembers: set by `keys add --base-url` and by a successful
/// `keys verify --base-url`, used by `claim` when it is given none. The real binary in a temp
/// HOME against a `moltbook-sandbox` process; a check that would otherwise let a later command
/// go to the real Moltbook is a `#require`, so no test ever leaves loopback.
@Suite("moltipass keys --base-url")
struct KeysBaseURLTests {
    /// keys add --base-url SANDBOX stores the URL and says so; claim without --base-url then asks
    /// the sandbox (its per-agent request counter goes up): pending (77), then claimed (0).
    @Test func addStoresBaseURLThatClaimUses() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let sandbox = try await SandboxProcess.start()
        defer { Task { await sandbox.stop() } }
        let base = sandbox.baseURL.absoluteString
        try await home.initKeychain()
        let key = try await registerOnSandbox(sandbox, "tide_clerk")

        let added = try await home.run(["keys", "add", "tide_clerk", "--base-url", base], stdin: key + "\n")
        try #require(added.status == 0, "\(added.stderr)")
        #expect(added.stdout == "added tide_clerk (key \(APIKey(key).fingerprint), base URL \(base))\n")
        try #require(try await home.listJSON().first?["base_url"]?.string == base)

        let before = try await sandboxRequests(sandbox, by: "tide_clerk")
        let pending = try await home.run(["claim", "tide_clerk"])
        #expect(pending.status == 77, "\(pending.stderr)")
        #expect(pending.stderr.contains("tide_clerk: pending claim"))
        #expect(try await sandboxRequests(sandbox, by: "tide_clerk") == before + 1)
        #expect(try await home.claimStatus("tide_clerk") == "pending_claim")

        try await claimOnSandbox(sandbox, "tide_clerk")
        let claimed = try await home.run(["claim", "tide_clerk"])
        #expect(claimed.status == 0, "\(claimed.stderr)")
        #expect(claimed.stdout == "tide_clerk: claimed\n")
        #expect(try await sandboxRequests(sandbox, by: "tide_clerk") == before + 2)
        #expect(try await home.claimStatus("tide_clerk") == "claimed")
        home.expectNoLeak(of: [key])
    }

    /// keys add --replace keeps the entry's base URL when none is given, takes the given one
    /// otherwise, and the real Moltbook URL clears it (production is the default).
    @Test func replaceKeepsOrReplacesBaseURL() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        try await home.initKeychain()
        let first = "http://127.0.0.1:8787/api/v1"
        let second = "http://localhost:9797/api/v1"
        func stored() async throws -> String? { try await home.listJSON().first?["base_url"]?.string }

        let added = try await home.run(
            ["keys", "add", "alpha", "--base-url", first], stdin: KeysCommandTests.alphaKey + "\n")
        try #require(added.status == 0, "\(added.stderr)")
        #expect(try await stored() == first)

        let kept = try await home.add("alpha", key: KeysCommandTests.betaKey, replace: true)
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(kept.stdout == "replaced alpha (key \(APIKey(KeysCommandTests.betaKey).fingerprint))\n")
        #expect(try await stored() == first)
        let fingerprint = try await home.listJSON().first?["key_fingerprint"]?.string
        #expect(fingerprint == APIKey(KeysCommandTests.betaKey).fingerprint)

        let moved = try await home.run(
            ["keys", "add", "alpha", "--replace", "--base-url", second], stdin: KeysCommandTests.alphaKey + "\n")
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout.hasSuffix(", base URL \(second))\n"))
        #expect(try await stored() == second)

        let production = try await home.run(
            ["keys", "add", "alpha", "--replace", "--base-url", "https://www.moltbook.com/api/v1"],
            stdin: KeysCommandTests.alphaKey + "\n")
        #expect(production.status == 0, "\(production.stderr)")
        #expect(try await home.listJSON().first.map { $0["base_url"] == nil } == true)
        home.expectNoLeak(of: [KeysCommandTests.alphaKey, KeysCommandTests.betaKey])
    }

    /// keys verify --base-url SANDBOX on an entry without one stores the URL (and the status it
    /// learned) and says "base URL stored"; claim without --base-url then reaches the sandbox,
    /// and a later verify without --base-url uses it and stores nothing new.
    @Test func verifyStoresBaseURLThatClaimUses() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let sandbox = try await SandboxProcess.start()
        defer { Task { await sandbox.stop() } }
        let base = sandbox.baseURL.absoluteString
        try await home.initKeychain()
        let key = try await registerOnSandbox(sandbox, "kelp_reader")
        try #require(try await home.add("kelp_reader", key: key).status == 0)
        #expect(try await home.listJSON().first.map { $0["base_url"] == nil } == true)

        let verified = try await home.run(["keys", "verify", "kelp_reader", "--base-url", base])
        #expect(verified.status == 77, "\(verified.stderr)")
        #expect(verified.stdout.hasPrefix("kelp_reader: pending claim"))
        #expect(verified.stdout.contains("base URL stored: \(base)"))
        try #require(try await home.listJSON().first?["base_url"]?.string == base)
        #expect(try await home.claimStatus("kelp_reader") == "pending_claim")

        let before = try await sandboxRequests(sandbox, by: "kelp_reader")
        let pending = try await home.run(["claim", "kelp_reader"])
        #expect(pending.status == 77, "\(pending.stderr)")
        #expect(pending.stderr.contains("kelp_reader: pending claim"))
        #expect(try await sandboxRequests(sandbox, by: "kelp_reader") == before + 1)

        try await claimOnSandbox(sandbox, "kelp_reader")
        let again = try await home.run(["keys", "verify", "kelp_reader"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == "kelp_reader: claimed (key \(APIKey(key).fingerprint))\n")
        #expect(try await home.claimStatus("kelp_reader") == "claimed")
        home.expectNoLeak(of: [key])
    }

    /// keys verify --base-url with a key the server rejects stores no base URL (only the
    /// invalid status), so the entry keeps pointing where it did.
    @Test func verifyInvalidKeyStoresNoBaseURL() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let sandbox = try await SandboxProcess.start()
        defer { Task { await sandbox.stop() } }
        try await home.initKeychain()
        let elsewhere = "http://127.0.0.1:8787/api/v1"
        let added = try await home.run(
            ["keys", "add", "alpha", "--base-url", elsewhere], stdin: KeysCommandTests.alphaKey + "\n")
        try #require(added.status == 0, "\(added.stderr)")
        let result = try await home.run(["keys", "verify", "alpha", "--base-url", sandbox.baseURL.absoluteString])
        #expect(result.status == 77, "\(result.stderr)")
        #expect(result.stdout.contains("alpha: invalid"))
        #expect(!result.stdout.contains("base URL stored"))
        #expect(try await home.listJSON().first?["base_url"]?.string == elsewhere)
        home.expectNoLeak(of: [KeysCommandTests.alphaKey])
    }
}
