import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// `moltipass run --once` killed with SIGKILL at random points and restarted.
@Suite("moltipass run survives SIGKILL")
struct RunCrashTests {
    /// Kills per test run: 20 in the suite; `MOLTIPASS_CRASH_KILLS=50` (or more) for the full
    /// acceptance run, `MOLTIPASS_CRASH_SEED` to replay a seed.
    static var kills: Int { ProcessInfo.processInfo.environment["MOLTIPASS_CRASH_KILLS"].flatMap(Int.init) ?? 20 }

    /// After every kill-and-restart (posts from a queue, comments and a vote, time moving 31 min
    /// per run) and a few clean runs, the sandbox saw no duplicate post or comment and no vote
    /// toggled off, and the agent's posts are the queue's first items, each once, in order.
    @Test func killedRunsNeverDuplicateOrSkip() async throws {
        let seed =
            ProcessInfo.processInfo.environment["MOLTIPASS_CRASH_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 1...UInt64(UInt32.max))
        print("RunCrashTests seed \(seed), \(Self.kills) kills (MOLTIPASS_CRASH_SEED to replay)")
        var random = SeededRandom(seed: seed)
        let fixture = try await RunFixture.start(sandboxArguments: ["--config", try Self.config()])
        defer { Task { await fixture.stop() } }
        // Registered two days early, so the engine too uses the established limits (1 post / 30 min):
        // the clean runs below then post even when no killed run got that far (a loaded machine).
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent("crash_poster")
        let host = try await fixture.hostPost()
        try fixture.queue(count: Self.kills + 10)
        let recipe = try fixture.postingRecipe(
            "crash_poster",
            extraJobs: """
                  - id: chatter
                    schedule: { every: 30m }
                    steps:
                      - comment:
                          post: \(host)
                          content: "Checking in at {{ date: yyyy-MM-dd HH:mm }}"
                      - vote: { ensure: upvoted, post: \(host) }
                """)
        var now = RunFixture.t0
        var killed = 0
        var completed = 0
        // The kill comes at a random point of a run: within the time a run that finished took
        // (a faster binary or machine would otherwise see most runs end before the kill).
        var window = 350
        for _ in 0..<Self.kills {
            try await fixture.setClock(now)
            let started = ContinuousClock.now
            let child = try ChildProcess(
                "moltipass",
                ["run", recipe, "--once", "--state", fixture.statePath, "--now", RunFixture.iso(now)],
                environment: fixture.home.environment, directory: fixture.home.directory.url)
            try await Task.sleep(for: .milliseconds(Int(random.next() % UInt64(window))))
            child.send(SIGKILL)
            let status = await child.waitForExit(timeout: 10)
            if child.wasSignalled {
                killed += 1
            } else {
                completed += 1
                let took = started.duration(to: .now).components
                window = max(20, min(window, Int(took.seconds * 1_000 + took.attoseconds / 1_000_000_000_000_000)))
            }
            // 75: a vote a kill left unknown is reported (never re-sent: a second vote would toggle it).
            #expect(child.wasSignalled || [0, 3, 4, 75].contains(status ?? -1), "run: \(status ?? -1) \(child.stderr)")
            now = now.addingTimeInterval(31 * 60)
        }
        for _ in 0..<3 {
            let result = try await fixture.run([recipe, "--once"], at: now)
            #expect([0, 3, 4, 75].contains(result.status), "clean run: \(result.stderr)")
            now = now.addingTimeInterval(31 * 60)
        }
        print("RunCrashTests: \(killed) killed, \(completed) finished before the kill")
        #expect(killed >= Self.kills / 4, "too few runs were killed mid-way")
        let counters = try await fixture.counters()
        #expect(counters["duplicate_contents"]?.int == 0, "seed \(seed)")
        #expect(counters["votes_removed"]?.int == 0, "seed \(seed)")
        #expect(counters["rate_limited"]?.int == 0, "seed \(seed)")
        let titles = try await fixture.titles(of: "crash_poster")
        #expect(titles == (0..<titles.count).map { "Item \($0)" }, "seed \(seed)")
        #expect(titles.count >= 2, "seed \(seed)")
        #expect(try await fixture.journalCount("state IN ('sent', 'uncertain')") == 0, "seed \(seed)")
    }

    /// Established limits from the first second (no new-agent profile).
    static func config() throws -> String {
        let directory = try TemporaryDirectory(prefix: "moltipass-crash-config")
        let path = directory.file("sandbox.json").path
        try #"{"new_agent_period_seconds": 0}"#.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
