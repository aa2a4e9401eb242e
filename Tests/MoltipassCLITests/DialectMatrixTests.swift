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

    /// A day of the example recipes in `recipes/` (all but the pair, whose recipes name a fixed
    /// port), run by cron every 10 minutes, with another agent posting targets: every run's exit
    /// code matches its report, nothing fails or stays uncertain, no 429, no duplicate, no vote
    /// removed, no write waits for another class's limit, and the digest and the set-up post go
    /// out once each, in order.
    @Test
    func aDayOfTheExampleRecipes() async throws {
        let dialect = TestDialect.current
        let fixture = try await RunFixture.start(
            sandboxArguments: ["--config", try RunCrashTests.config()], dialect: dialect)
        defer { Task { await fixture.stop() } }
        let day = Date(timeIntervalSince1970: 1_796_083_200)  // 2026-12-01T00:00:00Z
        try await fixture.setClock(day.addingTimeInterval(-2 * 86_400))
        for name in ["harbor_digest", "greeter", "swift_watcher", "demo_author", "demo_reader", "visitor", "spam_bot"] {
            try await fixture.keychainAgent(name)
        }
        try await fixture.setClock(day.addingTimeInterval(-86_400))
        try await fixture.byHand("visitor") { client in
            _ = try await client.createSubmolt(NewSubmolt(name: "swift", displayName: "Swift"))
        }
        try await fixture.byHand("spam_bot") { client in
            _ = try await client.createSubmolt(NewSubmolt(name: "crypto", displayName: "Crypto"))
        }
        let root = Fixtures.packageRoot.appendingPathComponent("recipes").path
        let recipes = [
            "daily-digest.yaml", "setup.yaml", "welcome-comments.yaml", "hourly-upvotes.yaml", "demo/author.yaml",
            "demo/reader.yaml",
        ].map { root + "/" + $0 }
        for step in 0..<144 {
            // Ten minutes and a second apart (a run's clock starts at `--now` and runs on).
            let at = day.addingTimeInterval(Double(step) * 601)
            if step % 12 == 5 {
                // A visitor posts now and then: an introduction to welcome, a release to upvote.
                try await fixture.setClock(at)
                let title = step % 24 == 5 ? "Swift 6.\(step) release notes" : "Hello, I am new here (\(step))"
                let submolt = step % 24 == 5 ? "swift" : "introductions"
                try await fixture.postByHand("visitor", submolt: submolt, title: title, content: "Hi all.")
            }
            let run = try await fixture.run(recipes + ["--once", "--json"], at: at)
            try Self.expectConsistent(run, step: step, dialect: dialect)
        }
        let counters = try await fixture.counters()
        #expect(counters["rate_limited"]?.int == 0, "\(counters)")
        #expect(counters["duplicate_contents"]?.int == 0, "\(counters)")
        #expect(counters["votes_removed"]?.int == 0, "\(counters)")
        let digest = try await fixture.titles(of: "harbor_digest")
        #expect(
            digest == ["Harbor digest, Tuesday 1 December: tides and traffic", "Hello from the harbor"], "\(digest)")
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
    }
}
