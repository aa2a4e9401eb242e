import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// Issue 18: a limit learned from a 429 comes from what the server says, not from this runner's
/// own last write, is capped by the documented limits and lapses. Through the binary.
@Suite("Learned limits")
struct LearnedLimitTests {
    /// A post made by hand between two runs makes the server refuse the runner's next post; that
    /// once taught a 70-minute (in the field: 385-minute) post spacing for good. Now the post
    /// waits for the server's hint only and posting goes on every 30 minutes.
    @Test(
        .enabled(
            if: TestDialect.current != .minimalMock,
            "the community mock's 429 names no period: there the spacing is measured, capped at 2 h, and lapses"))
    func aPostMadeByHandTeachesNoSlowerPace() async throws {
        let (fixture, recipe) = try await RunFixture.establishedPoster("hand_and_cron")
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0
        try await fixture.setClock(t0.addingTimeInterval(40 * 60))
        try await fixture.postByHand("hand_and_cron", title: "Posted by hand")
        let refused = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(60 * 60 + 5))
        #expect(refused.status == 4, "\(refused.stderr)")
        #expect(try await fixture.counter("rate_limited") == 1)
        // A minute past the server's wait and past the next half hour: a run's clock starts at
        // `--now` and runs, so on a loaded machine its requests leave seconds late.
        let after = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(71 * 60))
        #expect(after.status == 0, "\(after.stderr)")
        let next = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(102 * 60))
        #expect(next.status == 0, "\(next.stderr)")
        let status = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--now",
            RunFixture.iso(t0.addingTimeInterval(102 * 60)),
        ])
        #expect(!status.stdout.contains("learned"), "\(status.stdout)")
        #expect(try await fixture.counter("rate_limited") == 1)
    }
}
