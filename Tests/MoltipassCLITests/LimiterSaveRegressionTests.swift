import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Found by `scripts/reliability/kill9 --seed 424242` (docs/reliability.md): a run killed after it
/// marked its post done in the journal, but before it saved the limiter's state.
@Suite("Regression: a journaled post the limiter did not save")
struct LimiterSaveRegressionTests {
    /// The engine now stores the limiter's reservation in the transaction that marks a write
    /// `sent`. The state a kill can leave is captured for real: while the 10:34 post is in flight
    /// (applied by the sandbox, its answer delayed), the limiter rows on disk are copied; after
    /// the run ends they are put back, as if it had been killed between the journal's `done` and
    /// its final limiter save. The journal says a post went out at 10:34, and so does the saved
    /// limiter: the 11:00 post waits for 11:04 instead of drawing a 429 and learning a spacing
    /// the server never had.
    @Test
    func journaledPostChargesTheCooldown() async throws {
        let (fixture, recipe) = try await RunFixture.establishedPoster("saved_poster")
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0
        let child = try await fixture.startWithLatePost(
            recipe, at: t0.addingTimeInterval(34 * 60), delay: 3, untilPosts: 2)
        let inFlight = try await fixture.sqlite("SELECT key || ' ' || hex(state) FROM limiter_state")
        #expect(await child.waitForExit(timeout: 30) == 0)
        try await fixture.admin(.delete, "faults")
        for line in inFlight.split(separator: "\n") {
            let parts = line.split(separator: " ")
            _ = try await fixture.sqlite("UPDATE limiter_state SET state = X'\(parts[1])' WHERE key = '\(parts[0])'")
        }

        let next = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(60 * 60))
        #expect(next.status == 4, "\(next.stderr)")
        #expect(try await fixture.counter("rate_limited") == 0)
        #expect(try await fixture.titles(of: "saved_poster") == ["Item 0", "Item 1"])
    }
}
