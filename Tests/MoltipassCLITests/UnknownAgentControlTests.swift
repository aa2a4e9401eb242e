import Foundation
import MoltipassTesting
import Testing

/// Issue 34, observation 8: `pause` and `resume` of an agent the state does not know exited 0,
/// so a typo in an incident paused nothing and said it had. Now both refuse (exit 1), name the
/// agents the state knows, and change nothing; `pause --new` pauses an agent before its first run.
@Suite("pause and resume: an agent the state does not know")
struct UnknownAgentControlTests {
    @Test func aTypoPausesNothingAndSaysSo() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("real_name")
        try fixture.queue(count: 2)
        let recipe = try fixture.postingRecipe("real_name")
        let ran = try await fixture.run([recipe, "--once"], at: RunFixture.t0)
        #expect(ran.status == 0, "\(ran.stderr)")
        let at = ["--state", fixture.statePath, "--now", RunFixture.iso(RunFixture.t0.addingTimeInterval(60))]

        let typo = try await fixture.home.run(["pause", "real_nmae"] + at)
        #expect(typo.status == 1, "\(typo.stdout) \(typo.stderr)")
        #expect(typo.stderr.contains("the state knows no agent 'real_nmae' (it knows: real_name)"), "\(typo.stderr)")
        #expect(typo.stderr.contains("--new"), "\(typo.stderr)")
        #expect(!typo.stdout.contains("paused"), "\(typo.stdout)")
        #expect(try await fixture.sqlite("SELECT count(*) FROM pauses;") == "0")

        let resumed = try await fixture.home.run(["resume", "real_nmae"] + at)
        #expect(resumed.status == 1, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("nothing to resume"), "\(resumed.stderr)")

        // The right name works as before; --new pauses an agent that has not run yet.
        let right = try await fixture.home.run(["pause", "real_name"] + at)
        #expect(right.status == 0, "\(right.stderr)")
        let early = try await fixture.home.run(["pause", "next_agent", "--new"] + at)
        #expect(early.status == 0, "\(early.stderr)")
        #expect(try await fixture.sqlite("SELECT count(*) FROM pauses;") == "2")
        let back = try await fixture.home.run(["resume", "next_agent"] + at)
        #expect(back.status == 0, "\(back.stderr)")
    }
}
