import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// `moltipass plan --live` through the binary against a `moltbook-sandbox` process: the real
/// engine's selection, GET only, nothing written anywhere.
@Suite("moltipass plan --live")
struct PlanLiveTests {
    /// A recipe that posts, upvotes and comments on what its selectors pick in m/general.
    static func recipe(_ fixture: RunFixture) throws -> String {
        try fixture.file(
            "live.yaml",
            """
            agent: live_bot
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: bulletin
                schedule: { every: 30m }
                steps:
                  - post: { submolt: general, title: "Live {{ date: HH:mm }}", content: "Harbour news {{ date: HH:mm }}" }
              - id: upvotes
                schedule: { every: 1h }
                steps:
                  - vote:
                      ensure: upvoted
                      on: { source: submolt, submolt: general, sort: new, title_matches: "(?i)talk", max_per_run: 2 }
              - id: replies
                schedule: { cron: "15 * * * *" }
                steps:
                  - comment:
                      on: { source: submolt, submolt: general, sort: new, title_matches: "(?i)talk", max_per_run: 1 }
                      content: "Thanks, {{ post.author }}!"
              - id: noon
                schedule: { cron: "0 12 * * *" }
                steps:
                  - subscribe: [general]
            """)
    }

    /// What the selectors pick now and what would be sent, with titles and authors; no write
    /// reaches the server (its counters), the state file stays byte-identical; a real
    /// `run --once` then sends exactly what the live plan said it would.
    @Test func readsOnlyAndAgreesWithRun() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("live_bot")
        let recipe = try Self.recipe(fixture)
        let now = RunFixture.iso(RunFixture.t0)
        // A state file with something in it (cursors): a run at 09:05, then a post by another
        // agent for the selectors to find.
        _ = try await fixture.run([recipe, "--once"], at: RunFixture.t0.addingTimeInterval(-55 * 60))
        let host = try await fixture.hostPost()
        try await fixture.setClock(RunFixture.t0)
        let stateBefore = try Data(contentsOf: URL(fileURLWithPath: fixture.statePath))
        let before = try await fixture.counters()

        let live = try await fixture.home.run([
            "plan", "--live", recipe, "--state", fixture.statePath, "--now", now, "--json",
        ])
        #expect(live.status == 0, "\(live.stderr)")
        let after = try await fixture.counters()
        #expect(after["writes"]?.int == before["writes"]?.int, "no write reached the server")
        #expect(after["posts_created"]?.int == before["posts_created"]?.int)
        #expect(after["votes_cast"]?.int == before["votes_cast"]?.int)
        #expect((after["reads"]?.int ?? 0) > (before["reads"]?.int ?? 0))
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.statePath)) == stateBefore)

        let parsed = try JSONValue.parse(Data(live.stdout.utf8))
        let rows = parsed["rows"]?.array ?? []
        let wouldSend = rows.filter { $0["outcome"]?.string == "would_send" }
        let vote = try #require(wouldSend.first { $0["action"]?.string == "upvote_post" })
        #expect(vote["target"]?.string == host)
        #expect(vote["target_title"]?.string == "Talk to me")
        #expect(vote["target_author"]?.string == "crash_host")
        #expect(vote["request"]?.string == "POST /api/v1/posts/\(host)/upvote")
        // The 09:30 post would go now; the agent is new (1 post per 2 h), so the 10:00 one waits.
        let posts = rows.filter { $0["action"]?.string == "post" && $0["time"]?.string == now }
        #expect(posts.first?["title"]?.string == "Live 09:30")
        #expect(posts.first?["outcome"]?.string == "would_send")
        #expect(posts.first?["request"]?.string == "POST /api/v1/posts")
        #expect(posts.last?["title"]?.string == "Live 10:00")
        #expect(posts.last?["outcome"]?.string == "deferred")
        #expect(posts.last?["until"]?.string == "2026-12-01T12:00:00Z")
        #expect(posts.last?["reason"]?.string?.contains("post.cooldown") == true)
        #expect((parsed["writes_refused"]?.int ?? 0) == wouldSend.count)
        let jobs = parsed["jobs"]?.array ?? []
        // The 09:15 reply fell since the 09:05 run: due now. Noon's job is shown at its next occurrence.
        #expect(jobs.first { $0["job"]?.string == "replies" }?["due_now"]?.bool == true)
        #expect(jobs.first { $0["job"]?.string == "noon" }?["due_now"]?.bool == false)
        #expect(jobs.first { $0["job"]?.string == "noon" }?["at"]?.string == "2026-12-01T12:00:00Z")
        let subscribe = try #require(rows.first { $0["job"]?.string == "noon" && $0["action"]?.string == "subscribe" })
        #expect(subscribe["outcome"]?.string == "would_send")
        #expect(subscribe["time"]?.string == "2026-12-01T12:00:00Z")
        #expect(subscribe["request"]?.string == "POST /api/v1/submolts/general/subscribe")
        let comment = try #require(wouldSend.first { $0["action"]?.string == "comment" })
        #expect(comment["excerpt"]?.string == "Thanks, crash_host!")
        // By noon the waiting post has expired (at its job's next occurrence, 10:30): the pass at
        // 12:00 drops it unsent rather than post a stale "Live 10:00" (issue 19).
        #expect(
            rows.contains {
                $0["time"]?.string == "2026-12-01T12:00:00Z" && $0["title"]?.string == "Live 10:00"
                    && $0["outcome"]?.string == "skipped"
                    && $0["reason"]?.string?.hasPrefix("expired 2026-12-01T10:30:00Z") == true
            }, "\(rows)")

        let text = try await fixture.home.run(["plan", "--live", recipe, "--state", fixture.statePath, "--now", now])
        #expect(text.stdout.contains("the real server, reads only"))
        #expect(text.stdout.contains("“Talk to me” by crash_host"))
        #expect(text.stdout.contains("would send"))
        #expect(text.stdout.contains("next occurrence 2026-12-01 12:00:00 +00:00"))
        #expect(text.stdout.contains("times in UTC (the recipes' zone)"))
        #expect(try await fixture.counters()["writes"]?.int == before["writes"]?.int)

        // The run at the same instant sends what the live plan showed for the jobs due now.
        let run = try await fixture.run([recipe, "--once", "--json"], at: RunFixture.t0)
        let items = try JSONValue.parse(Data(run.stdout.utf8))["items"]?.array ?? []
        let done = Set(items.filter { $0["outcome"]?.string == "done" }.compactMap { $0["action"]?.string })
        let dueNow = Set(
            wouldSend.filter { $0["time"]?.string == now }.compactMap { $0["summary"]?.string })
        #expect(!dueNow.isEmpty)
        #expect(done == dueNow, "\(run.stdout)")
    }

    /// `--fail-on` applies to a live plan: a write deferred by the agent's own limits now is a finding.
    @Test func failOnLive() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("live_bot")
        let recipe = try fixture.file(
            "twice.yaml",
            """
            agent: live_bot
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: two
                schedule: { every: 30m }
                steps:
                  - post: { submolt: general, title: "First {{ date: HH:mm }}", content: "One" }
                  - post: { submolt: general, title: "Second {{ date: HH:mm }}", content: "Two" }
            """)
        let args = ["plan", "--live", recipe, "--state", fixture.statePath, "--now", RunFixture.iso(RunFixture.t0)]
        let plain = try await fixture.home.run(args)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout.contains("deferred"))
        let failing = try await fixture.home.run(args + ["--fail-on", "deferred"])
        #expect(failing.status == 10)
        #expect(failing.stderr.contains("1 deferred in the plan"))
        #expect(!FileManager.default.fileExists(atPath: fixture.statePath), "no state file is created")
        let simulationOnly = try await fixture.home.run(args + ["--html", fixture.home.path + "/live.html"])
        #expect(simulationOnly.status == 64)
        #expect(simulationOnly.stderr.contains("are for simulations"))
    }
}
