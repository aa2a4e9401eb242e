import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Found by `scripts/reliability/fault-storm` (docs/reliability.md): a selector vote whose earlier
/// occurrence is still due when the next one comes.
@Suite("Regression: one vote per target in a pass")
struct DoubleVoteRegressionTests {
    /// At 10:30 the 10:00 and 10:30 occurrences of a selector vote are both due and both pick the
    /// only post; it must be voted once: a second upvote removes the first (Moltbook toggles).
    @Test
    func twoOccurrencesOneTargetVoteOnce() async throws {
        let fixture = try await RunFixture.start(sandboxArguments: ["--config", try RunCrashTests.config()])
        defer { Task { await fixture.stop() } }
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent("double_voter")
        _ = try await fixture.hostPost()
        let recipe = try fixture.file(
            "vote.yaml",
            """
            agent: double_voter
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: curate
                schedule: { every: 30m }
                steps:
                  - vote: { ensure: upvoted, on: { source: submolt, submolt: general, sort: new } }
            """)
        let first = try await fixture.run([recipe, "--once"], at: RunFixture.t0.addingTimeInterval(-60))
        #expect(first.status == 3, "\(first.stderr)")
        let both = try await fixture.run([recipe, "--once"], at: RunFixture.t0.addingTimeInterval(30 * 60))
        #expect(both.status == 0, "\(both.stderr)")
        #expect(try await fixture.counter("votes_cast") == 1)
        #expect(try await fixture.counter("votes_removed") == 0)
    }
}
