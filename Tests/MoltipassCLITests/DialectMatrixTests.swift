import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// The test matrix: what must hold against every server dialect, run through the binary. Each
/// test runs against the dialect `MOLTIPASS_TEST_DIALECT` names (moltbook.com by default);
/// `scripts/test` runs this suite once per dialect and counts the tests of each.
@Suite("Dialect matrix")
struct DialectMatrixTests {
    /// Half a day of cron runs every 10 minutes with an agent at its limits (a post every 30 min
    /// from a queue, comments on new posts by others, upvotes, follows and subscriptions):
    /// every queue item in order and once, no duplicate post or comment, no vote removed, no
    /// write deferred by another class's limit, no 429, and every exit code matching its run's
    /// report.
    @Test
    func halfADayAtTheLimits() async throws {
        let dialect = TestDialect.current
        let fixture = try await RunFixture.start(
            sandboxArguments: ["--config", try RunCrashTests.config()], dialect: dialect)
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0
        try await fixture.setClock(t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent("matrix_agent")
        // Another agent, with an entry of its own in the keychain, posts targets now and then.
        try await fixture.keychainAgent("matrix_host")
        try fixture.queue(count: 40)
        let recipe = try fixture.file(
            "matrix.yaml",
            """
            agent: matrix_agent
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: posts
                schedule: { every: 30m }
                steps:
                  - post: { submolt: general, queue: queue.yaml }
              - id: social
                schedule: { every: 1h }
                steps:
                  - comment:
                      on: { source: submolt, submolt: general, sort: new, not_mine: true, max_per_run: 2 }
                      content: "Read {{ post.title }} by {{ post.author }}"
                  - vote: { ensure: upvoted, on: { source: submolt, submolt: general, sort: new, not_mine: true } }
              - id: setup
                schedule: { at: \(RunFixture.iso(t0)) }
                steps:
                  - follow: [matrix_host]
                  - subscribe: [agents, introductions]
            """)
        let hours = 12
        var runs = 0
        for step in 0..<(hours * 6) {
            // Ten minutes and a second apart: a run's clock starts at `--now` and runs on, so
            // runs exactly 30 minutes apart would meet the post cooldown a few ms early.
            let at = t0.addingTimeInterval(Double(step) * 601)
            if step % 6 == 3 {
                // Someone else posts now and then: targets for the comments and votes.
                try await fixture.postByHand("matrix_host", title: "Host post \(step)", content: "Say something.")
            }
            let run = try await fixture.run([recipe, "--once", "--json"], at: at)
            runs += 1
            try Self.expectConsistent(run, step: step, dialect: dialect)
        }
        #expect(runs == hours * 6)
        let counters = try await fixture.counters()
        #expect(counters["rate_limited"]?.int == 0, "\(counters)")
        #expect(counters["duplicate_contents"]?.int == 0, "\(counters)")
        #expect(counters["votes_removed"]?.int == 0, "\(counters)")
        let titles = try await fixture.titles(of: "matrix_agent")
        #expect(titles == (0..<(hours * 2)).map { "Item \($0)" }, "[\(dialect.rawValue)]")
        #expect(try await fixture.counter("comments_created") >= hours / 2)
    }

    /// A day of the example recipes in `recipes/` (the pair's with their fixed `base_url` pointed
    /// at this sandbox), run by cron every 10 minutes from Monday 09:30 UTC, with a visitor posting
    /// targets: every run's exit code matches its report, nothing fails or stays uncertain, no
    /// 429, no duplicate, no vote removed, no write waits for another class's limit; the digest
    /// queue's items and the set-up post go out once each, in order, and the pair talks.
    @Test
    func aDayOfTheExampleRecipes() async throws {
        let dialect = TestDialect.current
        let fixture = try await RunFixture.start(
            sandboxArguments: ["--config", try RunCrashTests.config()], dialect: dialect)
        defer { Task { await fixture.stop() } }
        let start = Date(timeIntervalSince1970: 1_796_031_000)  // 2026-11-30T09:30:00Z, a Monday
        try await fixture.setClock(start.addingTimeInterval(-2 * 86_400))
        let agents = [
            "harbor_digest", "greeter", "swift_watcher", "demo_author", "demo_reader", "alice", "bob", "visitor",
            "spam_bot",
        ]
        for name in agents { try await fixture.keychainAgent(name) }
        try await fixture.setClock(start.addingTimeInterval(-86_400))
        // The submolts the recipes name beyond the sandbox's own (one creation per agent: the limit).
        for (creator, submolt) in [("visitor", "swift"), ("spam_bot", "crypto"), ("greeter", "pairs")] {
            try await fixture.byHand(creator) { client in
                _ = try await client.createSubmolt(NewSubmolt(name: submolt, displayName: submolt.capitalized))
            }
        }
        let root = Fixtures.packageRoot.appendingPathComponent("recipes").path
        var recipes = [
            "daily-digest.yaml", "setup.yaml", "welcome-comments.yaml", "hourly-upvotes.yaml", "demo/author.yaml",
            "demo/reader.yaml",
        ].map { root + "/" + $0 }
        for pair in ["alice", "bob"] {
            let text = try String(contentsOfFile: root + "/pair/\(pair).yaml", encoding: .utf8)
            recipes.append(
                try fixture.file(
                    "\(pair).yaml", text.replacingOccurrences(of: "http://127.0.0.1:8787/api/v1", with: fixture.base)))
        }
        for step in 0..<144 {
            // Ten minutes and a second apart (a run's clock starts at `--now` and runs on).
            let at = start.addingTimeInterval(Double(step) * 601)
            if step % 12 == 5 {
                // A visitor posts now and then: an introduction to welcome, a release to upvote.
                try await fixture.setClock(at)
                let title = step % 24 == 5 ? "Swift 6.\(step) release notes" : "Hello, I am new here (\(step))"
                let submolt = step % 24 == 5 ? "swift" : "introductions"
                try await fixture.postByHand("visitor", submolt: submolt, title: title, content: "Hi all.")
            }
            let run = try await fixture.run(
                recipes + ["--once", "--json"], at: at, extra: ["RELEASE_TAG": "v2.1"])
            try Self.expectConsistent(run, step: step, dialect: dialect)
        }
        let counters = try await fixture.counters()
        #expect(counters["rate_limited"]?.int == 0, "\(counters)")
        #expect(counters["duplicate_contents"]?.int == 0, "\(counters)")
        #expect(counters["votes_removed"]?.int == 0, "\(counters)")
        let digest = try await fixture.titles(of: "harbor_digest")
        #expect(digest.count == 3, "\(digest)")
        #expect(digest.first?.hasSuffix(": tides and traffic") == true, "\(digest)")
        #expect(digest.dropFirst().first?.hasSuffix(": the new crane") == true, "\(digest)")
        #expect(digest.last == "Hello from the harbor", "\(digest)")
        #expect(try await fixture.titles(of: "alice").count == 1)
        let answered = try await fixture.byHand("alice") { client in
            let question = try await client.posts(sort: .new, limit: 20, submolt: "pairs").value.items.first
            let comments = try await client.comments(postID: question?.id ?? "").value.items
            return comments.contains { $0.author?.name == "bob" }
        }
        #expect(answered, "bob answered alice's question")
        #expect(try await fixture.counter("comments_created") >= 4, "\(counters)")
        #expect(try await fixture.counter("votes_cast") >= 4, "\(counters)")
    }

    /// A run's exit code matches its `--json` report; nothing failed or uncertain; every
    /// deferred write waits for its own class only.
    static func expectConsistent(_ run: ProcessRunner.Result, step: Int, dialect: SandboxDialect) throws {
        let report = try JSONValue.parse(Data(run.stdout.utf8))
        let items = report["items"]?.array ?? []
        let outcomes = items.compactMap { $0["outcome"]?.string }
        #expect(!outcomes.contains("failed") && !outcomes.contains("uncertain"), "run \(step): \(run.stdout)")
        let expected: Int32 = outcomes.contains("done") ? 0 : outcomes.contains("deferred") ? 4 : 3
        #expect(run.status == expected, "run \(step) [\(dialect.rawValue)]: \(run.stderr)")
        let outcome = expected == 0 ? "done" : expected == 4 ? "deferred" : "nothing_due"
        #expect(report["outcome"]?.string == outcome, "run \(step) [\(dialect.rawValue)]")
        for item in items where item["outcome"]?.string == "deferred" {
            let action = item["action"]?.string ?? ""
            let reason = item["reason"]?.string ?? ""
            // A write waits for its own class's limit only: never for another action's, and
            // never for the whole write class (a post's headers once froze every write).
            #expect(!reason.hasPrefix("write ") && !reason.contains(": write "), "run \(step): \(item)")
            if !action.hasPrefix("post") { #expect(!reason.contains("post "), "run \(step): \(item)") }
            if !action.hasPrefix("comment") { #expect(!reason.contains("comment "), "run \(step): \(item)") }
        }
    }

    /// docs/compatibility.md's table has one column per dialect, in order, and every row a cell
    /// for each.
    @Test
    func compatibilityTableNamesEveryDialect() throws {
        let url = Fixtures.packageRoot.appendingPathComponent("docs/compatibility.md")
        let rows = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("|") }
        let cells = rows.map { row in
            row.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        }
        #expect(cells.first == ["feature"] + SandboxDialect.allCases.map(\.rawValue))
        #expect(cells.count >= 12)
        #expect(cells.allSatisfy { $0.count == SandboxDialect.allCases.count + 1 })
        // Each cell says what it was verified against (issue 33): the sandbox, the real server, or nothing to verify.
        for row in cells.dropFirst(2) {
            for cell in row.dropFirst() {
                #expect(
                    ["[S]", "[R]", "[R+S]", "[n/a]"].contains { cell.contains($0) }, "\(row.first ?? ""): \(cell)")
            }
        }
    }
}
