import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 34, observation 4: only posts, comments and replies could be challenged; the challenge in the answer to
/// a vote, a follow or a subscription was ignored (never answered, so it expired: a failure towards suspension
/// the runner did not count). With the sandbox challenging every write, each is recognised and answered by the
/// built-in solver, or, declined, counted and paused like a post's.
@Suite("A challenge in the answer to any write")
struct EveryWriteChallengeTests {
    static func recipe(_ fixture: RunFixture, agent: String, post: String, solver: String) throws -> String {
        try fixture.file(
            "\(agent).yaml",
            """
            agent: \(agent)
            time_zone: UTC
            base_url: \(fixture.base)
            challenge: { solver: \(solver) }
            jobs:
              - id: social
                schedule: { every: 1h }
                steps:
                  - subscribe: general
                  - follow: crash_host
                  - vote: { ensure: upvoted, post: \(post) }
            """)
    }

    static func fixture(_ agent: String) async throws -> (RunFixture, String) {
        let fixture = try await RunFixture.start(
            sandboxArguments: ["--config", try RunCrashTests.config()], dialect: TestDialect.issuingChallenges)
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent(agent)
        let post = try await fixture.hostPost()
        try await fixture.admin(.post, "config", .object(["challenge_rate": 1, "challenge_every_write": true]))
        return (fixture, post)
    }

    @Test func eachIsAnsweredByTheSolver() async throws {
        let (fixture, post) = try await Self.fixture("social_solver")
        defer { Task { await fixture.stop() } }
        let recipe = try Self.recipe(fixture, agent: "social_solver", post: post, solver: "builtin")
        var issued = 0
        for step in 0..<3 {
            let run = try await fixture.run(
                [recipe, "--once", "--json"], at: RunFixture.t0.addingTimeInterval(Double(step) * 3_605))
            #expect(run.status == 0 || run.status == 3, "\(run.stderr)")
            issued = try await fixture.counter("challenges_issued")
            if issued >= 3 { break }
        }
        #expect(issued == 3, "one challenge each for the subscription, the follow and the vote")
        #expect(try await fixture.counter("challenges_verified") == 3)
        #expect(try await fixture.counter("challenges_expired") == 0)
        let kinds = try await fixture.sqlite("SELECT content_type FROM challenges ORDER BY content_type;")
        #expect(kinds.split(separator: "\n").sorted() == ["follow", "subscription", "vote"], "\(kinds)")
    }

    @Test func aDeclinedOneCountsAndPauses() async throws {
        let (fixture, post) = try await Self.fixture("social_decliner")
        defer { Task { await fixture.stop() } }
        let recipe = try Self.recipe(fixture, agent: "social_decliner", post: post, solver: "none")
        let run = try await fixture.run([recipe, "--once", "--json"], at: RunFixture.t0)
        #expect(run.status == 6, "paused after the declined challenge: \(run.stderr)")
        #expect(try await fixture.counter("challenges_issued") == 1)
        #expect(try await fixture.sqlite("SELECT status FROM challenges;") == "failed")
        let again = try await fixture.run([recipe, "--once"], at: RunFixture.t0.addingTimeInterval(60))
        #expect(again.status == 6, "\(again.stderr)")
        #expect(try await fixture.counter("challenges_issued") == 1, "nothing more is sent while paused")
    }
}
