import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 33, observation 7, through the binary: a server that ignores `?submolt=` lists every
/// submolt's posts; a `submolt: general` step comments on and votes for posts in m/general only.
@Suite("Selectors: constraints hold on what is acted on")
struct SelectorConstraintTests {
    @Test func aSubmoltStepActsOnlyInItsSubmolt() async throws {
        let (fixture, _) = try await RunFixture.establishedPoster("picky")
        defer { Task { await fixture.stop() } }
        try await fixture.admin(
            .post, "config",
            .object([
                "ignore_submolt_filter": .bool(true), "new_agent_period_seconds": .number(0),
                "limits": .object(["post_cooldown_seconds": .null]),
            ]))
        try await fixture.keychainAgent("mixed_poster")
        let at = RunFixture.t0.addingTimeInterval(3_600)
        try await fixture.setClock(at.addingTimeInterval(-120))
        let inGeneral = try await fixture.postByHand("mixed_poster", title: "In general", content: "Here.")
        try await fixture.setClock(at.addingTimeInterval(-60))
        // Newer, so first in a `sort: new` feed that ignores the filter.
        let elsewhere = try await fixture.postByHand(
            "mixed_poster", submolt: "introductions", title: "Elsewhere", content: "There.")
        let recipe = try fixture.file(
            "picky.yaml",
            """
            agent: picky
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: engage
                schedule: { every: 1h }
                steps:
                  - comment: { on: { source: submolt, submolt: general, sort: new, not_mine: true, max_per_run: 2 }, content: "Nice one." }
                  - vote: { ensure: upvoted, on: { source: submolt, submolt: general, sort: new, not_mine: true, max_per_run: 2 } }
            """)
        let run = try await fixture.run([recipe, "--once"], at: at)
        #expect(run.status == 0, "\(run.stderr)")
        let comments = try await fixture.admin(.get, "comments?author=picky")["comments"]?.array ?? []
        #expect(comments.compactMap { $0["post_id"]?.string } == [inGeneral], "\(comments)")
        #expect(try await fixture.journalCount("target = '\(elsewhere)'") == 0)
        #expect(try await fixture.journalCount("target = '\(inGeneral)' AND state = 'done'") == 2)
    }
}
