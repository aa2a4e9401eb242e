import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `moltipass generate RECIPE --step JOB/STEP [--target POST_ID]` through the real binary: a
/// real generator program, the sandbox's OpenAI-compatible fake over loopback with a key file,
/// a target post read from the sandbox, the state file's texts; never a Moltbook write, never
/// the model key in the output.
@Suite("moltipass generate")
struct GenerateCommandTests {
    static let t0 = RunFixture.t0
    static let modelKey = "sk-local-5e4d3c2b1a09f8e7d6c5b4a39281706f"

    static func generator(_ name: String) -> String {
        Fixtures.directory.appendingPathComponent("generators/\(name)").path
    }

    /// A recipe for `writer`: job `notes` with a generated post (step 1, `command` and `deny`)
    /// and a follow (step 2); job `quiet` whose post's generator is `program`.
    static func notesRecipe(deny: String = "(?i)as an ai", program: String = "skip.sh") -> String {
        """
        agent: writer
        time_zone: UTC
        jobs:
          - id: notes
            schedule: { every: 1h }
            steps:
              - post:
                  submolt: general
                  generate:
                    command: [\(generator("post-json.sh"))]
                    deny: ["\(deny)"]
              - follow: someone
          - id: quiet
            schedule: { every: 1h }
            steps:
              - post:
                  submolt: general
                  generate:
                    command: [\(generator(program))]
        """
    }

    /// Parses `result`'s stdout as the `--json` object.
    static func report(_ result: ProcessRunner.Result, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> JSONValue
    {
        try #require(try? JSONValue.parse(Data(result.stdout.utf8)), "\(result.stdout)\n\(result.stderr)")
    }

    static func checks(_ report: JSONValue) -> [String: String] {
        (report["checks"]?.array ?? []).reduce(into: [:]) { found, check in
            found[check["check"]?.string ?? "?"] = check["result"]?.string
        }
    }

    /// Issue 34, observation 8, through the binary: a generator's `setsid` grandchild outlived the run. It leaves
    /// the program's process group and session, and still goes when the program has given its text.
    @Test func aGeneratorsSetsidGrandchildDoesNotOutliveTheRun() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let pidFile = home.directory.file("grandchild.pid").path
        let program = home.directory.file("detaches.sh").path
        try """
        #!/bin/sh
        cat >/dev/null
        setsid sh -c 'echo $$ > \(pidFile).tmp; mv \(pidFile).tmp \(pidFile); exec sleep 300' </dev/null >/dev/null 2>&1 &
        while [ ! -s \(pidFile) ]; do sleep 0.01; done
        printf '{"title": "Harbor report", "content": "Calm water."}\\n'
        """.write(toFile: program, atomically: true, encoding: .utf8)
        chmod(program, 0o755)
        let recipe = home.directory.file("detach.yaml").path
        try """
        agent: writer
        time_zone: UTC
        jobs:
          - id: notes
            schedule: { every: 1h }
            steps:
              - post: { submolt: general, generate: { command: [\(program)] } }
        """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let result = try await home.run(["generate", recipe, "--step", "notes/1", "--now", RunFixture.iso(Self.t0)])
        #expect(result.status == 0, "\(result.stderr)")
        let grandchild = try #require(
            pid_t(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        var alive = true
        for _ in 0..<100 where alive {  // a SIGKILL sent is not yet a process gone
            let stat = try? String(contentsOfFile: "/proc/\(grandchild)/stat", encoding: .utf8)
            alive = stat.map { $0.split(separator: ")").last?.split(separator: " ").first != "Z" } ?? false
            if alive { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(!alive, "the generator's setsid grandchild \(grandchild) outlived moltipass generate")
        if alive { kill(grandchild, SIGKILL) }
    }

    /// A command generator's post: the context the runner would give it, the text, every check
    /// passed but the duplicate guard (no state file, and none created); the same write key at
    /// the same instant. The text mode says the same in lines.
    @Test func aCommandGeneratorsTextPassesTheChecks() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = home.directory.file("notes.yaml").path
        try Self.notesRecipe().write(toFile: recipe, atomically: true, encoding: .utf8)
        let arguments = ["generate", recipe, "--step", "notes/1", "--now", RunFixture.iso(Self.t0)]

        let result = try await home.run(arguments + ["--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let report = try Self.report(result)
        #expect(report["outcome"]?.string == "passed")
        #expect(report["exit_status"]?.int == 0)
        #expect(report["text"]?["title"]?.string == "Harbor report")
        #expect(report["text"]?["content"]?.string == "Calm water, three boats in.\nAll well.")
        #expect(
            Self.checks(report) == [
                "fields": "passed", "limits": "passed", "secrets": "passed", "deny": "passed",
                "duplicates": "not_checked",
            ])
        #expect(report["context"]?["action"]?.string == "post")
        #expect(report["context"]?["step"]?.int == 0)
        #expect(report["context"]?["submolt"]?.string == "general")
        #expect(report["context"]?["occurrence"]?.string == "2026-12-01T10:00:00Z")
        #expect(report["context"]?["key"]?.string == report["key"]?.string)
        #expect(report["untrusted"]?.array?.compactMap(\.string).contains("target.content") == true)
        #expect(report["state"] == .null)
        #expect(!FileManager.default.fileExists(atPath: home.path + "/state/moltipass/state.sqlite"))

        let again = try Self.report(try await home.run(arguments + ["--json"]))
        #expect(again["key"]?.string == report["key"]?.string)

        let text = try await home.run(arguments)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("notes/1: a post, generated by command"), "\(text.stdout)")
        #expect(text.stdout.contains("  title: Harbor report"), "\(text.stdout)")
        #expect(text.stdout.contains("\"recent_titles\": []"), "\(text.stdout)")
        #expect(text.stdout.contains("duplicates  not checked: no state file"), "\(text.stdout)")
        #expect(text.stdout.contains("result: the text passes every check (exit 0)"), "\(text.stdout)")
    }

    /// A deny pattern the text matches is a refusal (exit 15, the text shown); a generator that
    /// declines exits 16 with its reason, one that fails 17 with its reason.
    @Test func refusalSkipAndFailureHaveTheirOwnExitCodes() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = home.directory.file("notes.yaml").path
        try Self.notesRecipe(deny: "(?i)harbou?r").write(toFile: recipe, atomically: true, encoding: .utf8)

        let refused = try await home.run(["generate", recipe, "--step", "notes/1", "--json"])
        #expect(refused.status == 15, "\(refused.stderr)")
        let report = try Self.report(refused)
        #expect(report["outcome"]?.string == "refused")
        #expect(report["reason"]?.string == "the text matches the deny pattern `(?i)harbou?r`")
        #expect(Self.checks(report)["deny"] == "refused")
        #expect(report["text"]?["title"]?.string == "Harbor report")

        let skipped = try await home.run(["generate", recipe, "--step", "quiet/1"])
        #expect(skipped.status == 16, "\(skipped.stderr)")
        #expect(skipped.stdout.contains("skipped the occurrence: nothing worth saying today (exit 16)"))
        #expect(!skipped.stdout.contains("checks:"))

        try Self.notesRecipe(program: "fail.sh").write(toFile: recipe, atomically: true, encoding: .utf8)
        let failed = try await home.run(["generate", recipe, "--step", "quiet/1", "--json"])
        #expect(failed.status == 17, "\(failed.stderr)")
        let failure = try Self.report(failed)
        #expect(failure["outcome"]?.string == "failed")
        #expect(failure["reason"]?.string?.contains("exited with status 1") == true, "\(failed.stdout)")
        #expect(failure["text"] == .null)
    }

    /// What cannot be tried is a usage error naming what there is: a job or step that does not
    /// exist, `--step` without a step number, a step without `generate:`, `--target` on a post
    /// step; an invalid recipe is 65.
    @Test func wrongStepsAreUsageErrorsThatListTheSteps() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = home.directory.file("notes.yaml").path
        try Self.notesRecipe().write(toFile: recipe, atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (
                ["--step", "notes/3"],
                "job `notes` has no step `3`; its steps, numbered from 1: 1 post (generate: command), 2 follow"
            ),
            (["--step", "notes/0"], "job `notes` has no step `0`"),
            (["--step", "news/1"], "notes.yaml has no job `news`; its jobs: `notes`, `quiet`"),
            (["--step", "notes"], "--step takes JOB/STEP"),
            (["--step", "notes/2"], "step 2 of job `notes` has no `generate:`; its steps with `generate:`: `notes/1`"),
            (
                ["--step", "notes/1", "--target", "p1"],
                "step 1 writes a post, which answers no post; leave out --target"
            ),
        ]
        for (arguments, message) in cases {
            let result = try await home.run(["generate", recipe] + arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
        }
        let bad = home.directory.file("bad.yaml").path
        try "agent: writer\njobs: []\nnonsense: 1\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let invalid = try await home.run(["generate", bad, "--step", "notes/1"])
        #expect(invalid.status == 65, "\(invalid.stderr)")
    }

    /// A comment on the post the recipe names, without a keychain: the post cannot be read, the
    /// report says why and the context has no target post (as the runner's when it cannot read
    /// it); `--target` naming another post is a usage error.
    @Test func aCommentOnTheRecipesPost() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = home.directory.file("comment.yaml").path
        try """
        agent: writer
        jobs:
          - id: thanks
            schedule: { every: 1h }
            steps:
              - comment:
                  post: p-100
                  reply_to: c-7
                  generate:
                    command: [\(Self.generator("echo-topic.sh"))]
        """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let result = try await home.run(["generate", recipe, "--step", "thanks/1", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Self.report(result)
        #expect(report["target"]?["id"]?.string == "p-100")
        #expect(report["target"]?["named_by_recipe"]?.bool == true)
        #expect(report["target"]?["reply_to"]?.string == "c-7")
        #expect(report["target"]?["read"]?.bool == false)
        #expect(
            report["target"]?["not_read_because"]?.string?.contains("reading post p-100 needs writer's key") == true)
        #expect(report["context"]?["target"] == .null)
        #expect(report["context"]?["reply_to"]?.string == "c-7")
        #expect(report["context"]?["limits"]?["content"]?.int == 10_000)
        #expect(try Self.undocumented(report) == [], "\(report)")
        #expect(report["text"]?["content"]?.string == "Thoughts on .")
        let same = try await home.run(["generate", recipe, "--step", "thanks/1", "--target", "p-100"])
        #expect(same.status == 0, "\(same.stderr)")
        #expect(
            same.stdout.contains("target: post p-100, named by the recipe, a reply to comment c-7, not read: "),
            "\(same.stdout)")
        let other = try await home.run(["generate", recipe, "--step", "thanks/1", "--target", "p-200"])
        #expect(other.status == 64, "\(other.stderr)")
        #expect(other.stderr.contains("step 1 comments on post p-100, named by the recipe"), "\(other.stderr)")
    }

    /// With a state file, the agent's sent texts are the context's recent titles and the
    /// duplicate guard compares with them: a generated text the agent already posted is refused
    /// (exit 15), and the state file and the server are untouched.
    @Test func theDuplicateGuardReadsTheStateWithoutWritingIt() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("writer")
        let bulletin = try fixture.file(
            "bulletin.yaml",
            """
            agent: writer
            name: bulletin
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: bulletin
                schedule: { every: 30m }
                steps:
                  - post: { submolt: general, title: "Harbor report", content: "Calm water, three boats in.\\nAll well." }
            """)
        let posted = try await fixture.run([bulletin, "--once"], at: Self.t0)
        #expect(posted.status == 0, "\(posted.stderr)")
        let notes = try fixture.file("notes.yaml", Self.notesRecipe())
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.statePath))
        let writes = try await fixture.counter("writes")

        let result = try await fixture.home.run([
            "generate", notes, "--step", "notes/1", "--state", fixture.statePath, "--json",
            "--now", RunFixture.iso(Self.t0.addingTimeInterval(600)),
        ])
        #expect(result.status == 15, "\(result.stderr)")
        let report = try Self.report(result)
        #expect(report["state"]?.string == fixture.statePath)
        #expect(report["recent_title_count"]?.int == 1)
        #expect(report["context"]?["recent_titles"]?.array?.compactMap(\.string) == ["Harbor report"])
        #expect(Self.checks(report)["duplicates"] == "refused")
        let reason = report["reason"]?.string ?? ""
        // The post went in the run at 10:00 (its clock starts at --now when the command begins,
        // and the pass comes after the start-up: a second or two on a loaded machine).
        #expect(reason.hasPrefix("duplicate content: the same text as the post sent 2026-12-01T10:00:0"), "\(reason)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.statePath)) == before)
        #expect(try await fixture.counter("writes") == writes)
    }

    /// An `openai:` comment on a post picked with `--target`: the post is read from the sandbox
    /// (GET), its text fenced as untrusted in the prompt, the fake asked once with the key from a
    /// 0600 key file; nothing is written. The fake's `secret` model returns a key-shaped string:
    /// refused by the secret scan (exit 15), the text withheld. A key file readable by others is
    /// a generator failure (17). The key never appears in stdout or stderr.
    @Test func anOpenAIGeneratorAnswersATargetPost() async throws {
        let secrets = try TemporaryDirectory(prefix: "generate-model-key")
        defer { secrets.remove() }
        let sandboxKey = secrets.file("fake.key").path
        try KeysHome.writeSecret(Self.modelKey + "\n", to: sandboxKey)
        let fixture = try await RunFixture.start(sandboxArguments: ["--openai", "--openai-key-file", sandboxKey])
        defer { Task { await fixture.stop() } }
        try await fixture.agent("replier")
        let post = try await fixture.hostPost()
        let comment = try await Self.comment(on: post, "Nice harbour.", fixture: fixture)
        try KeysHome.writeSecret(Self.modelKey + "\n", to: fixture.home.path + "/model.key")
        var root = URLComponents(url: fixture.sandbox.baseURL, resolvingAgainstBaseURL: false)!
        root.path = ""
        let server = root.url!.absoluteString
        func recipe(model: String, keyFile: String = "model.key") throws -> String {
            try fixture.file(
                "replies.yaml",
                """
                agent: replier
                time_zone: UTC
                base_url: \(fixture.base)
                jobs:
                  - id: replies
                    schedule: { every: 1h }
                    steps:
                      - vote: { ensure: upvoted, post: \(post) }
                      - comment:
                          on: { source: submolt, submolt: general, limit: 10 }
                          generate:
                            openai:
                              base_url: \(server)/openai/v1
                              model: \(model)
                              system: You write one short, kind reply.
                              prompt: "Reply to the post {{ post.title }}: {{ post.content }}"
                              key_file: \(keyFile)
                      - comment:
                          post: \(post)
                          reply_to: \(comment)
                          generate:
                            openai:
                              base_url: \(server)/openai/v1
                              model: \(model)
                              prompt: "Answer {{ thread }} under {{ post.title }}"
                              key_file: \(keyFile)
                """)
        }
        let (writes, comments) = (try await fixture.counter("writes"), try await fixture.counter("comments_created"))
        let replies = try recipe(model: "llama3.2")
        let now = ["--now", RunFixture.iso(Self.t0)]

        let missing = try await fixture.home.run(["generate", replies, "--step", "replies/2"] + now)
        #expect(missing.status == 64, "\(missing.stderr)")
        #expect(missing.stderr.contains("pass --target POST_ID"), "\(missing.stderr)")
        let unknown = try await fixture.home.run(
            ["generate", replies, "--step", "replies/2", "--target", "no-such-post"] + now)
        #expect(unknown.status == 64, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("there is no post no-such-post"), "\(unknown.stderr)")

        let result = try await fixture.home.run(
            ["generate", replies, "--step", "replies/2", "--target", post, "--json"] + now)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try Self.report(result)
        #expect(report["generator"]?.string == "openai")
        #expect(report["model"]?.string == "llama3.2")
        #expect(report["target"]?["id"]?.string == post)
        #expect(report["target"]?["title"]?.string == "Talk to me")
        #expect(report["target"]?["selector_picks"]?.bool == true)
        #expect(report["context"]?["target"]?["title"]?.string == "Talk to me")
        #expect(report["context"]?["target"]?["untrusted"]?.bool == true)
        let prompt = report["prompt"]?.string ?? ""
        #expect(
            prompt == "Reply to the post <untrusted>Talk to me</untrusted>: <untrusted>Comments welcome.</untrusted>",
            "\(prompt)")
        #expect(
            report["system"]?.string?.hasPrefix("You write one short, kind reply.\n\nText between <untrusted>") == true)
        let content = report["text"]?["content"]?.string ?? ""
        #expect(content.hasPrefix("Generated by llama3.2 for prompt "), "\(content)")
        #expect(content.contains("under system"), "\(content)")
        #expect(Self.checks(report)["secrets"] == "passed")

        let named = try Self.report(
            try await fixture.home.run(["generate", replies, "--step", "replies/3", "--json"] + now))
        #expect(named["exit_status"]?.int == 0, "\(named)")
        #expect(named["target"]?["read"]?.bool == true)
        #expect(named["target"]?["named_by_recipe"]?.bool == true)
        #expect(named["target"]?["thread_comments"]?.int == 1)
        #expect(named["context"]?["target"]?["title"]?.string == "Talk to me")
        #expect(named["context"]?["reply_to"]?.string == comment)
        let thread = named["context"]?["thread"]?.array ?? []
        #expect(thread.map { $0["content"]?.string } == ["Nice harbour."], "\(thread)")
        #expect(thread.first?["untrusted"]?.bool == true)
        #expect(
            named["prompt"]?.string
                == "Answer <untrusted>harbour_fan: Nice harbour.</untrusted> under <untrusted>Talk to me</untrusted>")

        let secret = try await fixture.home.run(
            ["generate", try recipe(model: "secret"), "--step", "replies/2", "--target", post] + now)
        #expect(secret.status == 15, "\(secret.stderr)")
        #expect(secret.stdout.contains("text: withheld"), "\(secret.stdout)")
        #expect(secret.stdout.contains("secrets     refused: the text contains what looks like a Moltbook API key"))
        #expect(!secret.stdout.contains("Generated by secret"), "\(secret.stdout)")

        let open = fixture.home.path + "/open.key"
        try KeysHome.writeSecret(Self.modelKey + "\n", to: open)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: open)
        let unsafe = try await fixture.home.run(
            ["generate", try recipe(model: "llama3.2", keyFile: "open.key"), "--step", "replies/2", "--target", post]
                + now)
        #expect(unsafe.status == 17, "\(unsafe.stderr)")
        #expect(unsafe.stdout.contains("the model key is not available"), "\(unsafe.stdout)")

        let calls = try await Self.openAICalls(server)
        #expect(calls == ["llama3.2": 2, "secret": 1], "\(calls)")
        #expect(try await fixture.counter("writes") == writes)
        #expect(try await fixture.counter("comments_created") == comments)
        fixture.home.expectNoLeak(of: [Self.modelKey])
    }

    /// A comment on `post` by a new agent `harbour_fan`, made by hand; returns its id.
    static func comment(on post: String, _ content: String, fixture: RunFixture) async throws -> String {
        let key = try await registerOnSandbox(fixture.sandbox, "harbour_fan")
        try await claimOnSandbox(fixture.sandbox, "harbour_fan")
        let response = try await fixture.transport.send(
            HTTPRequest(
                method: .post, url: fixture.sandbox.baseURL.appendingPathComponent("posts/\(post)/comments"),
                headers: ["Content-Type": "application/json", "Authorization": "Bearer \(key)"],
                body: JSONValue.object(["content": .string(content)]).encoded()))
        let json = try JSONValue.parse(response.body)
        return try #require((json["comment"]?["id"] ?? json["data"]?["id"])?.string, "HTTP \(response.status)")
    }

    /// The fields of a `--json` report (top-level, and inside `target`, `text` and `checks[]`)
    /// that README's "Trying a generator" does not name.
    static func undocumented(_ report: JSONValue) throws -> [String] {
        var prose: [Substring] = []
        var fenced = false
        for line in try Readme.section("Trying a generator: `generate`") {
            if line.hasPrefix("```") { fenced.toggle() } else if !fenced { prose.append(line) }
        }
        let named = Set(Readme.codeSpans(prose.joined(separator: "\n")))
        var fields = Array(report.object?.keys ?? [:].keys)
        for nested in ["target", "text"] { fields += report[nested]?.object.map { Array($0.keys) } ?? [] }
        fields += report["checks"]?.array?.first?.object.map { Array($0.keys) } ?? []
        return fields.filter { !named.contains($0) }.sorted()
    }

    /// README's "Trying a generator" lines run as written where they need no keychain (the tide
    /// digest on a Tuesday morning: its exit status as commented), and name every field of the
    /// `--json` report.
    @Test func theReadmeSectionMatchesTheCommand() async throws {
        let lines = try Readme.shellLines(in: try Readme.section("Trying a generator: `generate`"))
        #expect(lines.count == 2)
        let home = try KeysHome()
        defer { home.remove() }
        for line in lines where !line.words.contains("--target") {
            #expect(line.words.first == "moltipass")
            let arguments = line.words.dropFirst().map {
                $0.hasSuffix(".yaml") ? Fixtures.packageRoot.appendingPathComponent($0).path : $0
            }
            let result = try await home.run(arguments + ["--now", "2026-12-01T06:30:00Z", "--json"])
            #expect(result.status == line.status, "\(line): \(result.stderr)")
            let report = try Self.report(result)
            #expect(report["text"]?["title"]?.string == "Kiel tides, Tuesday 1 December 2026")
            #expect(try Self.undocumented(report) == [], "\(report)")
        }
    }

    /// The fake's calls per model.
    static func openAICalls(_ server: String) async throws -> [String: Int] {
        let transport = try CurlTransport(configuration: .init(policy: URLPolicy(allowInsecureLoopback: true)))
        let response = try await transport.send(
            HTTPRequest(method: .get, url: URL(string: server + "/openai/_counters")!))
        #expect(response.status == 200)
        return (try JSONValue.parse(response.body).object ?? [:]).compactMapValues(\.int)
    }
}
