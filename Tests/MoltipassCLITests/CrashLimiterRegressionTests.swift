import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Found by `scripts/reliability/kill9` (docs/reliability.md): a run killed after the server
/// applied its post, but before the answer came back.
@Suite("Regression: a killed run's write and the limiter")
struct CrashLimiterRegressionTests {
    /// The next run reads the killed run's post back and marks it done; its send time must then
    /// count against the post cooldown, so the following post waits for the server's cooldown
    /// (deferred to 11:04) instead of drawing a 429 and learning a spacing the server never had.
    @Test
    func reconciledPostChargesTheCooldown() async throws {
        let (fixture, recipe) = try await RunFixture.establishedPoster("late_poster")
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0

        // 10:34: the 10:30 post goes out late and is answered 30 s later still; the run is killed
        // as soon as the sandbox has applied it (with 5 s, a loaded CI run's kill came after the
        // answer: the run had marked it done, and the next found nothing to read back).
        try await fixture.killDuringLatePost(recipe, at: t0.addingTimeInterval(34 * 60), delay: 30, untilPosts: 2)

        // 10:50, after the killed run's lease: the read-back finds Item 1.
        let reconciled = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(50 * 60))
        #expect(reconciled.status == 0, "\(reconciled.stderr)")
        // 11:00: Item 2 is due, but the server's cooldown from 10:34 lasts until 11:04.
        let early = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(60 * 60))
        #expect(early.status == 4, "\(early.stderr)")
        #expect(try await fixture.counter("rate_limited") == 0)
        // 11:05: it goes out; the 11:30 post waits for 11:35 and goes out at 11:36, not an hour later.
        let onTime = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(65 * 60))
        #expect(onTime.status == 0, "\(onTime.stderr)")
        let waiting = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(90 * 60))
        #expect(waiting.status == 4, "\(waiting.stderr)")
        let next = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(96 * 60))
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try await fixture.counter("rate_limited") == 0)
        #expect(try await fixture.titles(of: "late_poster") == ["Item 0", "Item 1", "Item 2", "Item 3"])
    }
}
