import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// `moltipass register`, `claim` and `keys verify` end to end: the real binary in a temp HOME
/// against a `moltbook-sandbox` process.
@Suite("moltipass register, claim and keys verify")
struct RegisterClaimTests {
    /// register stores the key (pending) and prints claim URL, code and tweet but never the key;
    /// verify says pending (77); `claim --wait` keeps polling until the sandbox admin switch
    /// claims the agent, then exits 0 and records claimed; verify then says claimed (0).
    @Test func registerPendingThenClaimWaitFlipsToClaimed() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let sandbox = try await SandboxProcess.start(arguments: ["--seed", "5"])
        defer { Task { await sandbox.stop() } }
        let base = sandbox.baseURL.absoluteString
        try await home.initKeychain()

        let registered = try await home.run(
            ["register", "reef_scout", "--description", "Posts tide tables", "--base-url", base])
        #expect(registered.status == 0, "\(registered.stderr)")
        let lines = registered.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("registered reef_scout (key ") == true)
        #expect(lines.contains { $0.hasPrefix("claim URL: http") })
        #expect(lines.contains { $0.hasPrefix("verification code: ") && !$0.hasSuffix("(none returned)") })
        #expect(lines.contains { $0.hasPrefix("tweet: ") })
        #expect(registered.stderr.isEmpty)

        let stored = try await home.listJSON().first
        #expect(stored?["name"]?.string == "reef_scout")
        #expect(stored?["claim_status"]?.string == "pending_claim")
        #expect(stored?["base_url"]?.string == base)
        #expect(stored?["claim_url"]?.string != nil && stored?["verification_code"]?.string != nil)

        let pending = try await home.run(["keys", "verify", "reef_scout", "--base-url", base])
        #expect(pending.status == 77)
        #expect(pending.stdout.contains("reef_scout: pending claim"))

        let notYet = try await home.run(["claim", "reef_scout"])
        #expect(notYet.status == 77)
        #expect(notYet.stderr.contains("pending claim"))

        let before = try await sandboxRequests(sandbox)
        async let waited = home.run(
            ["claim", "reef_scout", "--wait", "--timeout", "60s", "--poll-interval", "0.2", "--base-url", base])
        // Claimed only once the waiter has asked at least once (a loaded machine starts it late).
        let deadline = Date().addingTimeInterval(30)
        while try await sandboxRequests(sandbox) <= before, Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        try await claimOnSandbox(sandbox, "reef_scout")
        let claimed = try await waited
        #expect(claimed.status == 0, "\(claimed.stderr)")
        #expect(claimed.stdout == "reef_scout: claimed\n")
        #expect(claimed.stderr.contains("pending claim; waiting for the owner"))
        #expect(try await home.claimStatus("reef_scout") == "claimed")

        let verified = try await home.run(["keys", "verify", "reef_scout"])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.hasPrefix("reef_scout: claimed (key "))
        home.expectNoLeak(of: [])
    }

    /// claim --wait gives up at the timeout with exit 75 and says how to resume.
    @Test func claimWaitTimesOut() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let sandbox = try await SandboxProcess.start()
        defer { Task { await sandbox.stop() } }
        try await home.initKeychain()
        let base = sandbox.baseURL.absoluteString
        #expect(try await home.run(["register", "slow_owner", "--description", "x", "--base-url", base]).status == 0)
        let started = Date()
        let result = try await home.run(
            ["claim", "slow_owner", "--wait", "--timeout", "1s", "--poll-interval", "0.2"])
        #expect(result.status == 75)
        #expect(result.stderr.contains("still not claimed after 1s"))
        #expect(result.stdout.isEmpty)
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(try await home.claimStatus("slow_owner") == "pending_claim")
        home.expectNoLeak(of: [])
    }

    /// Registration errors in plain words: the name taken on the server (409) is 14, a name
    /// outside the rule is 64 before any request, an existing keychain entry is 14 before any
    /// request; nothing is stored by a failed registration.
    @Test func registrationErrors() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let sandbox = try await SandboxProcess.start()
        defer { Task { await sandbox.stop() } }
        try await home.initKeychain()
        let base = sandbox.baseURL.absoluteString
        #expect(try await home.run(["register", "taken_name", "--description", "x", "--base-url", base]).status == 0)

        let local = try await home.run(["register", "taken_name", "--description", "x", "--base-url", base])
        #expect(local.status == 14)
        #expect(local.stderr.contains("already exists") && local.stderr.contains("--replace"))

        let other = try KeysHome()
        defer { other.remove() }
        try await other.initKeychain()
        let taken = try await other.run(["register", "Taken_Name", "--description", "x", "--base-url", base])
        #expect(taken.status == 14)
        #expect(taken.stderr.contains("the agent name Taken_Name is taken on Moltbook"))
        #expect(taken.stdout.isEmpty)

        let invalid = try await other.run(["register", "x", "--description", "x", "--base-url", base])
        #expect(invalid.status == 64)
        #expect(invalid.stderr.contains("the agent name x is not valid"))
        #expect(try await other.listJSON().isEmpty)
        home.expectNoLeak(of: [])
        other.expectNoLeak(of: [])
    }

    /// keys verify with a key the server does not know: invalid, exit 77, recorded in the entry.
    @Test func verifyInvalidKey() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let sandbox = try await SandboxProcess.start()
        defer { Task { await sandbox.stop() } }
        try await home.initKeychain()
        let bogus = "moltbook_sk_NOTaREALkeyAtAll0000000000000000"
        #expect(try await home.add("ghost", key: bogus).status == 0)
        let result = try await home.run(["keys", "verify", "ghost", "--base-url", sandbox.baseURL.absoluteString])
        #expect(result.status == 77, "\(result.stderr)")
        #expect(result.stdout.contains("ghost: invalid"))
        #expect(try await home.claimStatus("ghost") == "invalid")
        home.expectNoLeak(of: [bogus])
    }

    /// --base-url must be loopback for plain http and otherwise the real Moltbook host:
    /// anything else is refused (64) before a request is made.
    @Test(arguments: ["http://example.com/api/v1", "https://moltbook.com/api/v1", "not a url"])
    func baseURLRefused(url: String) async throws {
        let home = try KeysHome()
        defer { home.remove() }
        try await home.initKeychain()
        #expect(try await home.add("alpha", key: KeysCommandTests.alphaKey).status == 0)
        let verify = try await home.run(["keys", "verify", "alpha", "--base-url", url])
        #expect(verify.status == 64, "\(verify.stderr)")
        let register = try await home.run(["register", "alpha2", "--description", "x", "--base-url", url])
        #expect(register.status == 64)
        let add = try await home.run(["keys", "add", "beta", "--base-url", url], stdin: KeysCommandTests.betaKey)
        #expect(add.status == 64, "\(add.stderr)")
        #expect(add.stderr.contains("--base-url") || add.stderr.contains("base URL"))
        #expect(try await home.listJSON().map { $0["name"]?.string } == ["alpha"])
        home.expectNoLeak(of: [KeysCommandTests.alphaKey, KeysCommandTests.betaKey])
    }

    /// Agent names register refuses locally, and the suggestion each gets (if any).
    static let refusedNames: [(String, String?)] = [
        ("reef-scout", "reef_scout"), ("x", nil), ("tide.clerk", nil), (String(repeating: "a", count: 33), nil),
        ("kelp-reader-of-the-deep-southern-seas", nil),
    ]

    /// register checks the name before any request: outside 2-32 letters, digits or '_' it
    /// exits 64 with the rule (and the name with '-' as '_' when that fits), nothing is sent to
    /// the sandbox and nothing is stored; --help states the same rule.
    @Test(arguments: refusedNames)
    func registerRefusesNameLocally(name: String, suggestion: String?) async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let sandbox = try await SandboxProcess.start()
        defer { Task { await sandbox.stop() } }
        try await home.initKeychain()
        let result = try await home.run(
            ["register", name, "--description", "x", "--base-url", sandbox.baseURL.absoluteString])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("the agent name \(name) is not valid"))
        #expect(result.stderr.contains("2-32 letters, digits or '_'"))
        if let suggestion {
            #expect(result.stderr.contains("; try \(suggestion)"))
        } else {
            #expect(!result.stderr.contains("; try "))
        }
        let counters = try await sandboxCounters(sandbox)
        #expect(counters["requests_total"]?.int == 0)
        #expect(try await home.listJSON().isEmpty)

        let help = try await home.run(["register", "--help"])
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("2-32 letters, digits or '_' (ASCII, no '-')"))
        home.expectNoLeak(of: [])
    }

    /// `--json` on register, claim and keys verify: one object on stdout with the documented
    /// fields only (README, "Keychain"), the entry's fingerprint and never the key; claim's
    /// pending answer and verify's claimed one carry their result and exit status.
    @Test func jsonOutputs() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let sandbox = try await SandboxProcess.start(arguments: ["--seed", "6"])
        defer { Task { await sandbox.stop() } }
        let base = sandbox.baseURL.absoluteString
        try await home.initKeychain()
        let documented = Set(
            Readme.table(startingWith: "`--json` field", in: try Readme.section("Keychain"))
                .flatMap { Readme.codeSpans($0[0]) })
        #expect(documented.count >= 10)
        func object(_ result: ProcessRunner.Result, sourceLocation: SourceLocation = #_sourceLocation) throws
            -> [String: JSONValue]
        {
            let object = try #require(
                try JSONValue.parse(Data(result.stdout.utf8)).object, "\(result.stdout)", sourceLocation: sourceLocation
            )
            #expect(Set(object.keys).isSubset(of: documented), "\(object.keys)", sourceLocation: sourceLocation)
            return object
        }

        let registered = try await home.run(
            ["register", "json_scout", "--description", "Posts tide tables", "--base-url", base, "--json"])
        #expect(registered.status == 0, "\(registered.stderr)")
        let made = try object(registered)
        let listed = try await home.listJSON().first
        #expect(made["name"]?.string == "json_scout")
        #expect(made["result"]?.string == "registered")
        #expect(made["claim_status"]?.string == "pending_claim")
        #expect(made["key_fingerprint"] == listed?["key_fingerprint"])
        #expect(made["claim_url"]?.string?.hasPrefix("http") == true)
        #expect(made["verification_code"] == listed?["verification_code"])
        #expect(made["tweet"]?.string != nil)
        #expect(made["base_url"]?.string == base)
        #expect(made["keychain"]?.string == home.path + "/config/moltipass/keychain")

        let pending = try await home.run(["claim", "json_scout", "--json"])
        #expect(pending.status == 77)
        let waiting = try object(pending)
        #expect(waiting["result"]?.string == "pending_claim")
        #expect(waiting["claim_status"]?.string == "pending_claim")

        try await claimOnSandbox(sandbox, "json_scout")
        let verified = try await home.run(["keys", "verify", "json_scout", "--json"])
        #expect(verified.status == 0, "\(verified.stderr)")
        let checked = try object(verified)
        #expect(checked["result"]?.string == "claimed")
        #expect(checked["claim_status"]?.string == "claimed")
        #expect(checked["base_url_stored"] == .bool(false))
        #expect(checked["key_fingerprint"] == listed?["key_fingerprint"])
        let claimed = try await home.run(["claim", "json_scout", "--json"])
        #expect(claimed.status == 0)
        #expect(try object(claimed)["result"]?.string == "claimed")
        home.expectNoLeak(of: [])
    }
}
