import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 19, observation 4 and deliver 2: an agent-name typo passed `validate` and `lint`, and a
/// wrong passphrase or a refused key showed only when a job first came due. `moltipass check`
/// finds each at once, lists every problem and exits non-zero. Through the binary against the
/// sandbox.
@Suite("moltipass check")
struct CheckCommandTests {
    static func recipe(_ fixture: RunFixture, _ file: String, agent: String, extra: String = "") throws -> String {
        try fixture.file(
            file,
            """
            agent: \(agent)
            time_zone: UTC
            base_url: \(fixture.base)
            \(extra)
            jobs:
              - id: \(file.split(separator: ".")[0])
                schedule: { cron: "0 9 * * *" }
                steps:
                  - post: { submolt: general, title: "Note {{ date: yyyy-MM-dd }}", content: "Hello." }
            """)
    }

    /// A good setup: every recipe and agent `ok`, exit 0, and no write or state file made.
    @Test func goodSetupPasses() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("harbor_checker")
        let recipe = try Self.recipe(fixture, "good.yaml", agent: "harbor_checker")
        let before = try await fixture.counter("writes")
        let check = try await fixture.home.run(["check", recipe, "--state", fixture.statePath])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains("ok recipe \(recipe)"))
        #expect(check.stdout.contains("ok agent harbor_checker: key works"), "\(check.stdout)")
        #expect(try await fixture.counter("writes") == before)
        #expect(!FileManager.default.fileExists(atPath: fixture.statePath))
    }

    /// A typo in `agent:`, a key the server refuses, an unset `env:` variable: all listed at
    /// once, each with what to do; the exit is the gravest (65: a recipe cannot run here).
    @Test func everyProblemIsListed() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("harbor_digest")
        let added = try await fixture.home.run(
            ["keys", "add", "refused_agent"], stdin: "moltbook_sk_" + String(repeating: "x", count: 32),
            recorded: false)
        #expect(added.status == 0, "\(added.stderr)")
        let typo = try Self.recipe(fixture, "typo.yaml", agent: "harbor_digset")
        let refused = try Self.recipe(fixture, "refused.yaml", agent: "refused_agent")
        let moody = try Self.recipe(fixture, "moody.yaml", agent: "harbor_digest", extra: "env: [MOOD]")
        let check = try await fixture.home.run(
            ["check", typo, refused, moody, "--state", fixture.statePath, "--json"])
        #expect(check.status == 65, "\(check.stderr)")
        let report = try JSONValue.parse(Data(check.stdout.utf8))
        #expect(report["ok"]?.bool == false)
        let problems = (report["problems"]?.array ?? []).map {
            ($0["kind"]?.string ?? "", $0["agent"]?.string ?? "", $0["message"]?.string ?? "")
        }
        #expect(
            problems.contains {
                $0.0 == "keychain" && $0.1 == "harbor_digset" && $0.2.contains("(did you mean `harbor_digest`?)")
            }, "\(problems)")
        #expect(problems.contains { $0.0 == "key_refused" && $0.1 == "refused_agent" }, "\(problems)")
        #expect(
            problems.contains { $0.0 == "environment" && $0.2.contains("environment variable MOOD is not set") },
            "\(problems)")
        let agents = report["agents"]?.array ?? []
        #expect(agents.first { $0["agent"]?.string == "harbor_digest" }?["key"]?.string == "works")
        // Without the recipe problem the gravest left is the refused key: 77.
        let keysOnly = try await fixture.home.run(["check", typo, refused, "--state", fixture.statePath])
        #expect(keysOnly.status == 12, "the keychain lacks an entry: \(keysOnly.stderr)")
        let refusedOnly = try await fixture.home.run(["check", refused, "--state", fixture.statePath])
        #expect(refusedOnly.status == 77, "\(refusedOnly.stderr)")
        #expect(refusedOnly.stderr.contains("problem: refused_agent: the server refuses the key"))
    }

    /// An unclaimed agent: the key works, the claim does not (moltbook.com's `is_claimed`).
    @Test(.enabled(if: TestDialect.current == .moltbookCom, "is_claimed as moltbook.com reports it"))
    func unclaimedAgent() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        let registered = try await fixture.home.run([
            "register", "waiting_human", "--description", "check test", "--base-url", fixture.base,
        ])
        #expect(registered.status == 0, "\(registered.stderr)")
        let recipe = try Self.recipe(fixture, "waiting.yaml", agent: "waiting_human")
        let check = try await fixture.home.run(["check", recipe, "--state", fixture.statePath])
        #expect(check.status == 77, "\(check.stderr)")
        #expect(
            check.stderr.contains("problem: waiting_human: the server says the agent is not claimed"), "\(check.stderr)"
        )
    }

    /// A wrong passphrase: the keychain does not open, named at once; no agent is asked.
    @Test func wrongPassphrase() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("locked_checker")
        let recipe = try Self.recipe(fixture, "locked.yaml", agent: "locked_checker")
        let wrong = fixture.home.path + "/wrong"
        try KeysHome.writeSecret("not the passphrase\n", to: wrong)
        let reads = try await fixture.counter("requests_total")
        let check = try await fixture.home.run(
            ["check", recipe, "--state", fixture.statePath], extra: ["MOLTIPASS_PASSPHRASE_FILE": wrong])
        #expect(check.status == 12, "\(check.stderr)")
        #expect(check.stderr.contains("problem: cannot open the keychain"), "\(check.stderr)")
        #expect(try await fixture.counter("requests_total") == reads)
        #expect(!check.stderr.contains("NSCocoaErrorDomain") && !check.stderr.contains("SQLite error"))
    }
}
