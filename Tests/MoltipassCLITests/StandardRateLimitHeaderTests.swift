import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 33, observation 4, through the binary: a server that reports its request window in the
/// IETF draft's `RateLimit-*` headers (express-rate-limit's, many gateways') is heeded as one that
/// sends `X-RateLimit-*`: a run whose requests outnumber the window stops at it, and the votes held
/// back are sent once it resets. (That one window counted for reads and writes alike is taken as
/// one bucket is `HintAbsorptionTests.aWindowSharedByReadsAndWritesHoldsBoth`.)
@Suite("Standard RateLimit-* headers")
struct StandardRateLimitHeaderTests {
    /// 429s served and votes done over two runs, for one header style.
    static func bucket(_ style: String) async throws -> (rateLimited: Int, votes: Int, removed: Int) {
        let name = "bucket_\(style.prefix(4))"
        let (fixture, _) = try await RunFixture.establishedPoster(name)
        defer { Task { await fixture.stop() } }
        try await fixture.admin(
            .post, "config",
            .object([
                "rate_limit_headers": .string(style), "new_agent_period_seconds": .number(0),
                "limits": .object([
                    "post_cooldown_seconds": .null, "requests_per_window": .number(8),
                    "request_window_seconds": .number(60),
                ]),
            ]))
        try await fixture.keychainAgent("bucket_poster_\(style.prefix(4))")
        let at = RunFixture.t0.addingTimeInterval(3_600)
        try await fixture.setClock(at.addingTimeInterval(-120))
        for index in 0..<6 {
            try await fixture.postByHand(
                "bucket_poster_\(style.prefix(4))", title: "Vote for \(index)", content: "Please \(index).")
        }
        let recipe = try fixture.file(
            "bucket.yaml",
            """
            agent: \(name)
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: votes
                schedule: { every: 1h }
                steps:
                  - vote: { ensure: upvoted, on: { source: submolt, submolt: general, sort: new, not_mine: true, max_per_run: 6 } }
            """)
        let first = try await fixture.run([recipe, "--once"], at: at)
        #expect([0, 4].contains(first.status), "\(style): \(first.stderr)")
        #expect(!first.stderr.contains("spacing learned"), "a window's 429 teaches no spacing: \(first.stderr)")
        let second = try await fixture.run([recipe, "--once"], at: at.addingTimeInterval(75))
        #expect([0, 3, 4].contains(second.status), "\(style): \(second.stderr)")
        let third = try await fixture.run([recipe, "--once"], at: at.addingTimeInterval(150))
        #expect([0, 3].contains(third.status), "\(style): \(third.stderr)")
        let counters = try await fixture.counters()
        return (
            counters["rate_limited"]?.int ?? -1,
            try await fixture.journalCount("action = 'upvote_post' AND state = 'done'"),
            counters["votes_removed"]?.int ?? 0
        )
    }

    /// moltbook.com's dialect: the window headers are the style under test (the open-source
    /// server reports its own, the community mock none).
    @Test(.pinsItsDialect) func theStandardHeadersAreHeededLikeTheXOnes() async throws {
        let x = try await Self.bucket("x")
        let standard = try await Self.bucket("standard")
        #expect(standard.votes == 6, "\(standard)")
        #expect(x.votes == 6, "\(x)")
        // The window is heeded as soon as a write's answer shows it is the reads' window too: at
        // most the one 429 that taught it (the reads spent it before the first write), the same
        // with either style; every vote done in the later runs, none toggled off.
        #expect(standard.rateLimited == x.rateLimited, "standard \(standard) against X- \(x)")
        #expect(standard.rateLimited <= 1, "\(standard)")
        #expect(standard.removed == 0)
    }
}
