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

    /// Generators (issue 21), checked without running one or asking a model server: a program
    /// that does not exist, is not executable or is not on the generators' PATH; plain http to
    /// a host that is not loopback; a key file open to others or empty (its key never shown); a
    /// model key the keychain lacks (with the closest name); each a problem naming the file and
    /// the step (65, or 12 for the keychain alone). An unset `env:` variable is a warning only.
    @Test func generatorsAreChecked() async throws {
        let secrets = try TemporaryDirectory(prefix: "check-model-key")
        defer { secrets.remove() }
        let modelKey = "sk-local-0f1e2d3c4b5a69788796a5b4c3d2e1f0"
        let looseKey = "sk-local-loose0key0never0shown00000000"
        let fakeKey = secrets.file("fake.key").path
        try KeysHome.writeSecret(modelKey + "\n", to: fakeKey)
        let fixture = try await RunFixture.start(sandboxArguments: ["--openai", "--openai-key-file", fakeKey])
        defer { Task { await fixture.stop() } }
        try await fixture.agent("gen_checker")
        let added = try await fixture.home.run(["keys", "add", "--model", "harbour"], stdin: modelKey + "\n")
        #expect(added.status == 0, "\(added.stderr)")
        let home = fixture.home.path
        try KeysHome.writeSecret(modelKey + "\n", to: home + "/good.key")
        try KeysHome.writeSecret(looseKey + "\n", to: home + "/loose.key")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: home + "/loose.key")
        try KeysHome.writeSecret("\n", to: home + "/empty.key")
        try "#!/bin/sh\necho hi\n".write(toFile: home + "/plain.sh", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: home + "/plain.sh")
        let log = home + "/generator.log"
        let counting = Fixtures.directory.appendingPathComponent("generators/counting.sh").path
        var root = URLComponents(url: fixture.sandbox.baseURL, resolvingAgainstBaseURL: false)!
        root.path = ""
        let model = root.url!.absoluteString + "/openai/v1"
        func comment(_ baseURL: String, _ key: String) -> String {
            """
                  - comment:
                      on: { source: submolt, submolt: general }
                      generate:
                        openai: { base_url: "\(baseURL)", model: llama3.2, prompt: "Hi {{ post.title }}", \(key) }
            """
        }
        func recipe(_ name: String, _ steps: [String]) throws -> String {
            try fixture.file(
                name,
                """
                agent: gen_checker
                time_zone: UTC
                base_url: \(fixture.base)
                jobs:
                  - id: writes
                    schedule: { every: 1h }
                    steps:
                """ + "\n" + steps.joined(separator: "\n"))
        }
        func post(_ command: String, env: String = "") -> String {
            """
                  - post:
                      submolt: general
                      generate:
                        command: [\(command), \(log)]\(env.isEmpty ? "" : "\n            env: [\(env)]")
            """
        }
        let broken = try recipe(
            "broken.yaml",
            [
                post(home + "/missing.sh"), post(home + "/plain.sh"), post("no-such-generator-program"),
                post(counting, env: "WRITER_TONE"), comment("http://10.0.0.5:11434/v1", "key_file: good.key"),
                comment(model, "key_file: loose.key"), comment(model, "key_file: empty.key"),
                comment(model, "key: harbur"), comment(model, "key: harbour"), comment(model, "key_file: good.key"),
            ])
        let check = try await fixture.home.run(["check", broken, "--state", fixture.statePath, "--json"])
        #expect(check.status == 65, "\(check.stderr)")
        let report = try JSONValue.parse(Data(check.stdout.utf8))
        let problems = (report["problems"]?.array ?? []).map {
            "\($0["kind"]?.string ?? ""): \($0["message"]?.string ?? "")"
        }
        let place = "generator: \(broken): generator of `writes/"
        #expect(
            problems == [
                place + "1`: the program \(home)/missing.sh does not exist",
                place + "2`: the program \(home)/plain.sh is not executable (chmod +x \(home)/plain.sh)",
                place + "3`: the program `no-such-generator-program` is not on the generators' PATH "
                    + "(/usr/local/bin:/usr/bin:/bin); give its full path",
                place + "5`: base_url http://10.0.0.5:11434/v1 is plain http to 10.0.0.5, which is not this machine: "
                    + "the prompts and the key would cross the network unencrypted; use https (plain http is for "
                    + "127.0.0.1, ::1 and localhost)",
                place + "6`: the key file \(home)/loose.key is accessible by group or others (mode 0644); "
                    + "make it private: chmod 600 \(home)/loose.key",
                place + "7`: the key file \(home)/empty.key is empty",
                "keychain: \(broken): generator of `writes/8`: no model key `harbur` in \(fixture.home.keychainPath) "
                    + "(did you mean `harbour`?); store it with `moltipass keys add --model harbur` or fix the "
                    + "recipe's `key:`",
            ], "\(problems)")
        let warnings = (report["warnings"]?.array ?? []).compactMap { $0["message"]?.string }
        #expect(
            warnings == [
                "\(broken): generator of `writes/4`: passes environment variable WRITER_TONE, which is not set here: "
                    + "the program gets no WRITER_TONE"
            ], "\(warnings)")
        #expect(report["agents"]?.array?.first?["key"]?.string == "works")

        let text = try await fixture.home.run(["check", broken, "--state", fixture.statePath])
        #expect(text.status == 65)
        #expect(text.stderr.contains("problem: gen_checker: \(broken): generator of `writes/1`: the program "))
        #expect(text.stderr.contains("warning: gen_checker: \(broken): generator of `writes/4`: passes "))

        // The model key alone: the keychain's code. All well: 0, and the warning gone with the variable set.
        let keyOnly = try await fixture.home.run([
            "check", try recipe("key-only.yaml", [comment(model, "key: harbur")]), "--state", fixture.statePath,
        ])
        #expect(keyOnly.status == 12, "\(keyOnly.stderr)")
        let good = try recipe(
            "good.yaml",
            [
                post(counting, env: "WRITER_TONE"), comment(model, "key: harbour"),
                comment(model, "key_file: good.key"), comment("http://localhost:9/v1", "key_file: good.key"),
            ])
        let passed = try await fixture.home.run(
            ["check", good, "--state", fixture.statePath], extra: ["WRITER_TONE": "dry"])
        #expect(passed.status == 0, "\(passed.stderr)")
        #expect(passed.stderr.isEmpty, "\(passed.stderr)")
        let unset = try await fixture.home.run(["check", good, "--state", fixture.statePath])
        #expect(unset.status == 0, "a warning does not fail the check: \(unset.stderr)")
        #expect(unset.stderr.contains("warning: gen_checker: "), "\(unset.stderr)")

        #expect(!FileManager.default.fileExists(atPath: log), "check ran a generator")
        #expect(try await GenerateCommandTests.openAICalls(root.url!.absoluteString) == [:])
        fixture.home.expectNoLeak(of: [modelKey, looseKey])
    }
}
