import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 34, observation 3: with every write challenged, the solver set to `none` and `moltipass resume` after
/// every pause, an agent was suspended twice in 100 simulated hours; with `stop_after: 9` the server saw ten
/// failures in a row. The server's count is not reset by a resume: once it is at `ChallengePolicy.safeStreak`
/// (8) the agent's writes stay stopped, `resume` refuses to lift that stop and says why, and the server never
/// sees a ninth failure.
@Suite("Challenge failures: the server's count bounds everything")
struct StreakBoundTests {
    @Test func anOperatorWhoResumesAfterEveryPauseCannotGetTheAgentSuspended() async throws {
        let fixture = try await RunFixture.start(
            sandboxArguments: ["--config", try RunCrashTests.config()], dialect: TestDialect.issuingChallenges)
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0
        try await fixture.setClock(t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent("insisted_agent")
        try await fixture.admin(.post, "config", .object(["challenge_rate": 1]))
        try fixture.queue(count: 40)
        let recipe = try fixture.postingRecipe(
            "insisted_agent", extraJobs: "challenge: { solver: none, on_fail: { pause: 1h, stop_after: 9 } }")
        var refusal: ProcessRunner.Result?
        var step = 0
        while step < 120, refusal == nil {
            let at = t0.addingTimeInterval(Double(step) * 1_805)
            let run = try await fixture.run([recipe, "--once"], at: at)
            if run.status == 6 {  // paused: the operator resumes at once, every time
                let resumed = try await fixture.home.run([
                    "resume", "insisted_agent", "--state", fixture.statePath, "--now",
                    RunFixture.iso(at.addingTimeInterval(1)),
                ])
                if resumed.status != 0 { refusal = resumed }
            }
            step += 1
        }
        let refused = try #require(refusal, "resume never refused")
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains("8 verification challenges failed in a row on the server's count"),
            "\(refused.stderr)")
        #expect(refused.stderr.contains("challenge_failed not lifted"), "\(refused.stderr)")
        let issued = try await fixture.counter("challenges_issued")
        #expect(issued == 8, "stop_after 9 is capped at 8")

        // The operator goes on insisting for another day: nothing more is sent, the stop stays.
        let later = t0.addingTimeInterval(Double(step) * 1_805)
        for extra in 0..<48 {
            let at = later.addingTimeInterval(Double(extra) * 1_805)
            let run = try await fixture.run([recipe, "--once"], at: at)
            #expect(run.status == 6, "\(run.stderr)")
            _ = try await fixture.home.run([
                "resume", "insisted_agent", "--state", fixture.statePath, "--now", RunFixture.iso(at),
            ])
        }
        #expect(try await fixture.counter("challenges_issued") == issued)
        #expect(try await fixture.counter("suspensions") == 0)
        let health = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--health", "--now",
            RunFixture.iso(later.addingTimeInterval(48 * 1_805)), "--max-tick-age", "3600",
        ])
        #expect(health.status == 1)
        #expect(health.stderr.contains("on the server's count (Moltbook suspends at 10)"), "\(health.stderr)")
        // How far the agent is from a suspension, in status.
        let status = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--json", "--now",
            RunFixture.iso(later.addingTimeInterval(48 * 1_805)),
        ])
        let agent = try JSONValue.parse(Data(status.stdout.utf8))["agents"]?.array?.first
        #expect(agent?["challenge_streak"]?["on_server"]?.int == 8, "\(status.stdout)")
        #expect(agent?["challenge_streak"]?["stops_at"]?.int == 8)
        #expect(agent?["challenge_streak"]?["suspends_at"]?.int == 10)
    }
}
