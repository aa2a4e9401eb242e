import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 18: a streak of failed verification challenges stops the agent before the server's ten.
/// Through the binary, on the sandbox's virtual clock.
@Suite("Challenge failure streak")
struct ChallengeStreakTests {
    /// Every write challenged and a solver that always declines: each six-hour pause used to end
    /// in another challenge, and the failures added up to a suspension after ~62 hours. Over 80
    /// hours of cron runs the agent now stops after two failures in a row: 0 suspensions, two
    /// challenges, exit 6 and an unhealthy `status --health` naming the streak; `moltipass resume`
    /// starts it again with a fresh count.
    @Test
    func twoFailuresInARowStopTheAgent() async throws {
        let fixture = try await RunFixture.start(
            sandboxArguments: ["--config", try RunCrashTests.config()], dialect: TestDialect.issuingChallenges)
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0
        try await fixture.setClock(t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent("declining_agent")
        try await fixture.admin(.post, "config", .object(["challenge_rate": 1]))
        try fixture.queue(count: 40)
        let recipe = try fixture.postingRecipe(
            "declining_agent", extraJobs: "challenge: { solver: none }")
        var statuses: Set<Int32> = []
        for step in 0..<160 {
            let run = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(Double(step) * 1_801))
            statuses.insert(run.status)
        }
        #expect(statuses == [6], "\(statuses)")
        #expect(try await fixture.counter("suspensions") == 0)
        #expect(try await fixture.counter("duplicate_contents") == 0)
        #expect(try await fixture.counter("challenges_issued") == 2)
        #expect(try await fixture.counter("posts_created") == 2)
        let end = t0.addingTimeInterval(160 * 1_801)
        let health = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--health", "--now", RunFixture.iso(end),
            "--max-tick-age", "3600",
        ])
        #expect(health.status == 1)
        #expect(health.stderr.contains("2 verification challenges failed in a row"), "\(health.stderr)")
        // The two challenged posts are parked and shown, never re-sent as they are.
        let parked = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--now", RunFixture.iso(end),
        ])
        #expect(parked.stdout.components(separatedBy: "parked post \"Item ").count == 3, "\(parked.stdout)")

        let resumed = try await fixture.home.run([
            "resume", "declining_agent", "--state", fixture.statePath, "--now", RunFixture.iso(end),
        ])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.contains("lifted challenge_failed"), "\(resumed.stdout)")
        let again = try await fixture.run([recipe, "--once"], at: end.addingTimeInterval(60))
        #expect(again.status == 6, "\(again.stderr)")
        #expect(try await fixture.counter("challenges_issued") == 3)
        // One failure since the resume: a timed pause, not a stop.
        let status = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--now", RunFixture.iso(end.addingTimeInterval(60)),
        ])
        #expect(!status.stdout.contains("lifted by hand"), "\(status.stdout)")

        // No queue item lost: once challenges stop and the pause ends, the queue goes on from the
        // item after the last parked one; every item is either published or parked and shown.
        try await fixture.admin(.post, "config", .object(["challenge_rate": 0]))
        let resumedAgain = try await fixture.home.run([
            "resume", "declining_agent", "--state", fixture.statePath, "--now",
            RunFixture.iso(end.addingTimeInterval(120)),
        ])
        #expect(resumedAgain.status == 0, "\(resumedAgain.stderr)")
        var lines: [String] = []
        for step in 1...4 {  // the first is deferred: 30 minutes from the challenged post
            let run = try await fixture.run([recipe, "--once"], at: end.addingTimeInterval(Double(step) * 1_805))
            lines.append("\(run.status) \(run.stderr)")
        }
        #expect(try await fixture.titles(of: "declining_agent") == ["Item 3", "Item 4", "Item 5"], "\(lines)")
        let shown = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--now",
            RunFixture.iso(end.addingTimeInterval(4 * 1_805)),
        ])
        for item in 0...2 {
            #expect(shown.stdout.contains("parked post \"Item \(item)\""), "\(shown.stdout)")
        }
    }

    /// `pause` stops an agent's writes (exit 6, health stays healthy: the operator chose it);
    /// `resume` lifts it.
    @Test
    func pauseAndResume() async throws {
        let (fixture, recipe) = try await RunFixture.establishedPoster("paused_by_hand")
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0
        let paused = try await fixture.home.run([
            "pause", "paused_by_hand", "--for", "2h", "--state", fixture.statePath, "--now", RunFixture.iso(t0),
            "--json",
        ])
        #expect(paused.status == 0, "\(paused.stderr)")
        #expect(paused.stdout.contains("\"paused_until\":\"2026-12-01T12:00:00Z\""), "\(paused.stdout)")
        let during = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(1_805))
        #expect(during.status == 6, "\(during.stderr)")
        let health = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--health", "--now",
            RunFixture.iso(t0.addingTimeInterval(1_900)),
        ])
        #expect(health.status == 0, "\(health.stderr)")
        let resumed = try await fixture.home.run([
            "resume", "paused_by_hand", "--state", fixture.statePath, "--json", "--now",
            RunFixture.iso(t0.addingTimeInterval(1_950)),
        ])
        #expect(resumed.stdout.contains("\"lifted\":[\"manual\"]"), "\(resumed.stdout)")
        let after = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(2 * 1_805))
        #expect(after.status == 0, "\(after.stderr)")
    }
}
