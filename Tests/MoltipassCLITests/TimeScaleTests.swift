import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// `--time-scale`: a real `moltipass` process and a real `moltbook-sandbox` process living
/// through simulated hours in seconds, on clocks that agree.
@Suite("moltipass run --time-scale")
struct TimeScaleTests {
    /// 2026-01-01T00:00:00Z, on the half-hour grid of the posting recipe.
    static let start = Date(timeIntervalSince1970: 1_767_225_600)

    /// A daemon and a sandbox both from 2026-01-01T00:00Z at ×600, on a recipe posting every
    /// 30 minutes from a queue: after 17 s of wall time (≈ 2 h 50 min simulated) and SIGTERM,
    /// the sandbox holds one post per half hour it lived through (±1), the queue's items in
    /// order, none twice; a 429 is a known engine race (below), never anything but a post cooldown.
    @Test func daemonLivesThroughSimulatedHours() async throws {
        let fixture = try await RunFixture.start(
            sandboxArguments: ["--now", RunFixture.iso(Self.start), "--time-scale", "600"], dialect: .moltbookCom)
        defer { Task { await fixture.stop() } }
        // Registered two days before the start: the established limits (1 post / 30 min).
        try await fixture.setClock(Self.start.addingTimeInterval(-2 * 86_400))
        try await fixture.agent("scaled_daemon")
        try fixture.queue(count: 20)
        let recipe = try fixture.postingRecipe("scaled_daemon")
        try await fixture.setClock(Self.start)
        let daemon = try ChildProcess(
            "moltipass",
            [
                "run", recipe, "--state", fixture.statePath, "--now", RunFixture.iso(Self.start),
                "--time-scale", "600", "--log-format", "json",
            ],
            environment: fixture.home.environment, directory: fixture.home.directory.url)
        try await Task.sleep(for: .seconds(17))
        let clock = try await fixture.admin(.get, "clock")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: 30) == 0, "\(daemon.stderr)")

        let now = try #require(clock["now"]?.string.flatMap(SandboxTime.parse))
        #expect(clock["time_scale"]?.double == 600)
        let halfHours = Int(now.timeIntervalSince(Self.start) / 1_800)
        let titles = try await fixture.titles(of: "scaled_daemon")
        // One post a half hour, never more; a loaded machine's stalls (a second is ten simulated
        // minutes) may cost some, but a daemon on the real clock would have posted once in 17 s.
        #expect(
            (3...halfHours + 2).contains(titles.count), "\(titles.count) posts in \(halfHours) half hours")
        #expect(titles.count >= 4, "the daemon ran at real speed: \(titles)")
        #expect(titles == (0..<titles.count).map { "Item \($0)" })
        #expect(try await fixture.counter("posts_created") == titles.count)
        // Any 429 was a post cooldown the daemon waited out (the posts above are complete).
        let counters = try await fixture.counters()
        let refused = counters["rate_limited"]?.int ?? -1
        #expect(refused >= 0 && refused <= titles.count, "\(counters)")
        #expect(refused == (counters["rate_limited_by_class"]?["post"]?.int ?? 0), "\(counters)")
        // Known engine race, amplified 600 times: a pass reserves its post at its `now`, read when
        // it starts, and the post reaches the server milliseconds later, when the server's cooldown
        // starts. A pass that gets to its request sooner than the previous one did (a few ms under
        // load: seconds at ×600) lands inside the server's 30 minutes and gets a 429.
        withKnownIssue("a post can reach the server before its cooldown ends there", isIntermittent: true) {
            #expect(refused == 0, "\(counters)\n\(daemon.stdout)")
        }
        #expect(!daemon.stdout.contains("moltbook_sk_"))
    }

    /// `run --once --max-wait 2h --time-scale 1800` waits out a new agent's post cooldown (90
    /// simulated minutes) in about 3 real seconds, then posts: the inline wait is the virtual one
    /// divided by the scale.
    @Test func onceWaitsOnTheScaledClock() async throws {
        let fixture = try await RunFixture.start(dialect: .moltbookCom)
        defer { Task { await fixture.stop() } }
        try await fixture.agent("scaled_once")  // registered at t0: a new agent, 1 post / 2 h
        try fixture.queue(count: 3)
        let recipe = try fixture.postingRecipe("scaled_once")
        #expect(try await fixture.run([recipe, "--once"], at: RunFixture.t0).status == 0)
        // The sandbox is already past the cooldown: only the runner's own wait stands in the way.
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(2 * 3_600 + 60))
        let started = ContinuousClock.now
        let result = try await fixture.home.run([
            "run", recipe, "--once", "--max-wait", "2h", "--time-scale", "1800", "--state", fixture.statePath,
            "--now", RunFixture.iso(RunFixture.t0.addingTimeInterval(1_800)),
        ])
        let elapsed = ContinuousClock.now - started
        #expect(result.status == 0, "\(result.stderr)")
        #expect(elapsed >= .milliseconds(2_500), "no wait: \(elapsed)")
        #expect(try await fixture.titles(of: "scaled_once") == ["Item 0", "Item 1"])
        #expect(try await fixture.counter("rate_limited") == 0)
    }

    /// Issue 33, observation 3: `--max-wait` means what it says. 25 votes paced at one a minute
    /// (the recipe's `writes_per_minute: 1`) and `--max-wait 3h`: one run casts all 25, one per
    /// pass (it stopped after its 20th pass, with the rest due within the wait). At ×120 the 24
    /// minutes of spacing take 12 real seconds; the wait's slack covers any machine's slowness
    /// (a pass of a tenth of a second is 12 simulated seconds).
    @Test func maxWaitIsNotAPassCount() async throws {
        let fixture = try await RunFixture.start(dialect: .moltbookCom)
        defer { Task { await fixture.stop() } }
        try await fixture.admin(
            .post, "config",
            .object([
                "new_agent_period_seconds": .number(0),
                "limits": .object([
                    "post_cooldown_seconds": .null, "writes_per_window": .null, "reads_per_window": .null,
                ]),
            ]))
        try await fixture.agent("patient_voter")
        try await fixture.keychainAgent("many_posts")
        for index in 0..<25 {
            try await fixture.postByHand("many_posts", title: "Vote \(index)", content: "Post \(index).")
        }
        let recipe = try fixture.file(
            "votes.yaml",
            """
            agent: patient_voter
            time_zone: UTC
            base_url: \(fixture.base)
            limits: { writes_per_minute: 1 }
            jobs:
              - id: votes
                schedule: { cron: "1 10 * * *", missed: { run_once_within: 2h } }
                steps:
                  - vote: { ensure: upvoted, on: { source: submolt, submolt: general, sort: new, limit: 50, not_mine: true, max_per_run: 25 } }
            """)
        let result = try await fixture.home.run([
            "run", recipe, "--once", "--max-wait", "3h", "--time-scale", "120", "--state", fixture.statePath,
            "--now", RunFixture.iso(RunFixture.t0.addingTimeInterval(90)),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await fixture.journalCount("action = 'upvote_post' AND state = 'done'") == 25)
        #expect(try await fixture.counter("rate_limited") == 0)
    }

    /// A `--time-scale` that is not a number from 1 to 100 000 exits 64 with the accepted range.
    @Test(arguments: ["0", "0.5", "100001", "fast", "nan"])
    func refusesBadScales(value: String) async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = home.path + "/run.yaml"
        try "agent: a_b\njobs:\n  - id: posts\n    schedule: { every: 30m }\n    steps: []\n"
            .write(toFile: recipe, atomically: true, encoding: .utf8)
        let result = try await home.run(["run", recipe, "--time-scale", value, "--state", home.path + "/s.sqlite"])
        #expect(result.status == 64)
        #expect(
            result.stderr.contains("--time-scale `\(value)` is not a time scale")
                && result.stderr.contains("a number from 1 to 100000"), "\(result.stderr)")
    }
}
