import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// Issue 18: a vote whose outcome is unknown is settled by reading the vote back.
@Suite("Votes read back")
struct VoteReadBackTests {
    /// A 502 from a proxy on the vote (it did not land) used to lose the vote for good. The next
    /// run reads the post's vote field, finds none, and votes: one vote cast, none removed.
    @Test(
        .enabled(
            if: TestDialect.current != .minimalMock,
            "the community mock shows no vote state: there a lost vote is never re-sent (DialectRegressionTests)"))
    func unknownVoteIsReadBackAndSent() async throws {
        let (fixture, _) = try await RunFixture.establishedPoster("careful_voter")
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0
        let target = try await fixture.hostPost()
        let recipe = try fixture.file(
            "vote.yaml",
            """
            agent: careful_voter
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: vote
                schedule: { every: 1h }
                steps:
                  - vote: { ensure: upvoted, post: \(target) }
            """)
        try await fixture.admin(
            .post, "faults",
            .object(["mode": "http502", "method": "POST", "path_prefix": "/api/v1/posts/\(target)/upvote", "count": 1]))
        let lost = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(3_605))
        #expect(lost.status == 9, "\(lost.stderr)")
        #expect(try await fixture.counter("votes_cast") == 0)
        let settled = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(3_665))
        #expect(settled.status == 0, "\(settled.stderr)")
        #expect(try await fixture.counter("votes_cast") == 1)
        #expect(try await fixture.counter("votes_removed") == 0)
        // Landed now: later runs leave it alone.
        _ = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(2 * 3_605))
        #expect(try await fixture.counter("votes_cast") == 1)
        #expect(try await fixture.counter("votes_removed") == 0)
    }
}
