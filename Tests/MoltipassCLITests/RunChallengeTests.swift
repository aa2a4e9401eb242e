import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Verification challenges, the pause after a failure and the auth breaker, through the real
/// binary (`run --once`, libcurl, a SQLite state file) against a `moltbook-sandbox` process.
@Suite("moltipass run: challenges and auth")
struct RunChallengeTests {
    /// Every write challenged: the built-in solver answers through `POST /verify` and the run
    /// exits 0, quietly (a challenge answered is a success: nothing for cron mail); the stored
    /// challenge is solved.
    @Test func builtinSolverVerifies() async throws {
        let fixture = try await RunFixture.start(dialect: TestDialect.issuingChallenges)
        defer { Task { await fixture.stop() } }
        try await fixture.agent("verify_poster")
        try fixture.queue(count: 5)
        let recipe = try fixture.postingRecipe("verify_poster")
        try await fixture.admin(.post, "config", .object(["challenge_rate": .number(1)]))

        let run = try await fixture.run([recipe, "--once", "--json"], at: RunFixture.t0)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        #expect(try await fixture.counter("challenges_issued") == 1)
        #expect(try await fixture.counter("challenges_verified") == 1)
        let report = try JSONValue.parse(Data(run.stdout.utf8))
        let verify = report["items"]?.array?.first { $0["action"]?.string == "verify" }
        #expect(verify?["outcome"]?.string == "done")
        let solved = try await ProcessRunner.runSystem(
            "/usr/bin/sqlite3", [fixture.statePath, "SELECT status, attempts FROM challenges;"])
        #expect(solved.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "solved|1")
        fixture.home.expectNoLeak(of: [])
    }

    /// `solver: none`: the first run's post is challenged and declined; the run exits 6
    /// (paused) and says why; later cron runs exit 6 without sending a single write; the sandbox
    /// never suspends the agent.
    @Test func solverNonePausesCronRuns() async throws {
        let fixture = try await RunFixture.start(dialect: TestDialect.issuingChallenges)
        defer { Task { await fixture.stop() } }
        try await fixture.agent("none_poster")
        try fixture.queue(count: 5)
        let recipe = try fixture.file(
            "none.yaml",
            """
            agent: none_poster
            base_url: \(fixture.base)
            challenge:
              solver: none
              on_fail: { pause: 6h }
            jobs:
              - id: posts
                schedule: { every: 30m }
                steps:
                  - post: { submolt: general, queue: queue.yaml }
            """)
        try await fixture.admin(.post, "config", .object(["challenge_rate": .number(1)]))
        let t0 = RunFixture.t0

        let first = try await fixture.run([recipe, "--once"], at: t0)
        #expect(first.status == 6, "\(first.stderr)")
        #expect(first.stderr.contains("paused: none_poster"), "\(first.stderr)")
        let writes = try await fixture.counter("writes")
        for hour in [1, 3, 5] {
            // A pause the operator did not ask for is a failure without --detailed-exitcode too.
            let later = try await fixture.run(
                [recipe, "--once"], at: t0.addingTimeInterval(Double(hour) * 3_600), detailed: hour != 3)
            #expect(later.status == 6, "hour \(hour): \(later.stderr)")
            #expect(later.stderr.contains("paused: none_poster"), "hour \(hour): \(later.stderr)")
        }
        #expect(try await fixture.counter("writes") == writes)
        #expect(try await fixture.counter("suspensions") == 0)
        // The pause ends after six hours and posting resumes: the next post is challenged and
        // declined again, so the agent pauses again — one failure per six hours, never ten in a row.
        let resumed = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(6 * 3_600 + 30))
        #expect(resumed.status == 6, "\(resumed.stderr)")
        #expect(try await fixture.counter("posts_created") == 2)
        #expect(try await fixture.counter("challenges_issued") == 2)
        let status = try await fixture.home.run(
            [
                "status", recipe, "--state", fixture.statePath, "--json", "--now",
                RunFixture.iso(t0.addingTimeInterval(60)),
            ])
        #expect(status.stdout.contains("challenge_failed"), "\(status.stdout)")
    }

    /// A 401 wave on writes while reads work: the first run meets one refused write and exits
    /// 6 (the breaker's pause) instead of retrying; after the wave, the held post goes out once.
    @Test func authWaveBreaker() async throws {
        let fixture = try await RunFixture.start(dialect: TestDialect.issuingChallenges)
        defer { Task { await fixture.stop() } }
        try await fixture.agent("wave_poster")
        try fixture.queue(count: 5)
        let recipe = try fixture.postingRecipe("wave_poster")
        try await fixture.admin(
            .post, "faults", .object(["mode": .string("auth_wave"), "count": .number(2)]))
        let t0 = RunFixture.t0

        let first = try await fixture.run([recipe, "--once"], at: t0)
        #expect(first.status == 6, "\(first.stderr)")
        #expect(try await fixture.counter("faults_injected") == 1)
        // Inside the breaker's pause: nothing is sent.
        let inside = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(30))
        #expect(inside.status == 6, "\(inside.stderr)")
        #expect(try await fixture.counter("faults_injected") == 1)
        // After it: one probe read, one trial write (refused again: the pause doubles).
        let trial = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(90))
        #expect(trial.status == 6, "\(trial.stderr)")
        #expect(try await fixture.counter("faults_injected") == 2)
        // The wave is over: the held post goes out, exactly once.
        let recovered = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(300))
        #expect(recovered.status == 0, "\(recovered.stderr)")
        #expect(try await fixture.counter("posts_created") == 1)
        #expect(try await fixture.titles(of: "wave_poster") == ["Item 0"])
    }
}
