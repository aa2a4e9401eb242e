import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// A `run --once` killed while it holds an account's lease does not lock the next cron run out
/// for the lease's time to live (10 minutes): the next run on the same machine sees that the
/// holder's process is gone, takes the lease over and settles what the killed run left.
@Suite("run --once after a killed run")
struct LeaseTakeoverRunTests {
    @Test
    func nextRunTakesTheDeadRunsLease() async throws {
        let (fixture, recipe) = try await RunFixture.establishedPoster("killed_holder")
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0

        // 10:34: the 10:30 post is applied but answered late; the run is killed meanwhile.
        try await fixture.killDuringLatePost(recipe, at: t0.addingTimeInterval(34 * 60), delay: 5, untilPosts: 2)

        // 10:36, well within the killed run's 10-minute lease: not locked (exit 5); the post is
        // read back and marked done, never sent twice.
        let next = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(36 * 60))
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stderr.contains("took over the lease"), "\(next.stderr)")
        #expect(try await fixture.titles(of: "killed_holder") == ["Item 0", "Item 1"])
        #expect(try await fixture.counter("duplicate_contents") == 0)
        #expect(try await fixture.journalCount("state IN ('sent', 'uncertain')") == 0)
    }
}
