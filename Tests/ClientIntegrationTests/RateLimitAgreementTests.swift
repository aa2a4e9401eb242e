import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltbookSandboxServer
import MoltipassTesting
import Testing

/// The sandbox's 429 and the client's parsed hint agree, for each body shape.
@Suite("429 shapes: sandbox and client agree")
struct RateLimitAgreementTests {
    /// Post cooldown (`retry_after_minutes`): after 10 of 30 minutes the wait is 20 minutes.
    @Test(.pinsItsDialect) func postCooldown() async throws {
        // moltbook.com's limits and 429 shapes (the other dialects' are in DialectTests).
        let sandbox = try await SandboxHarness.start(
            config: SandboxConfig(dialect: .moltbookCom), clock: SettableClock(fixed: fixedStart))
        defer { Task { await sandbox.stop() } }
        let client = try sandbox.client(key: try await sandbox.registeredAgent("poster"))
        sandbox.clock.advance(by: 2 * 86_400)  // past the first-24-hours profile
        _ = try await client.createPost(.text(submolt: "general", title: "One", content: "x"))
        sandbox.clock.advance(by: 600)
        let error = try #require(
            await apiError {
                try await client.createPost(.text(submolt: "general", title: "Two", content: "y"))
            })
        #expect(error.code == .rateLimited)
        #expect(error.rateLimit.retryAfterMinutes == 20)
        #expect(error.rateLimit.retryWait(now: sandbox.clock.now) == 1200)
        #expect(sandbox.model.counters().postsCreated == 1)
    }

    /// Comment cooldown (`retry_after_seconds` + `daily_remaining`).
    @Test(.pinsItsDialect) func commentCooldown() async throws {
        // moltbook.com's limits and 429 shapes (the other dialects' are in DialectTests).
        let sandbox = try await SandboxHarness.start(
            config: SandboxConfig(dialect: .moltbookCom), clock: SettableClock(fixed: fixedStart))
        defer { Task { await sandbox.stop() } }
        let client = try sandbox.client(key: try await sandbox.registeredAgent("talker"))
        sandbox.clock.advance(by: 2 * 86_400)
        let post = try await client.createPost(.text(submolt: "general", title: "T", content: "x")).value.item!
        _ = try await client.createComment(postID: post.id, content: "first")
        sandbox.clock.advance(by: 5)
        let error = try #require(await apiError { try await client.createComment(postID: post.id, content: "second") })
        #expect(error.code == .rateLimited)
        #expect(error.rateLimit.retryWait(now: sandbox.clock.now) == 15)
        #expect(error.rateLimit.dailyRemaining == 49)
        sandbox.clock.advance(by: 15)
        _ = try await client.createComment(postID: post.id, content: "second")
    }

    /// Generic request window (`statusCode`/`retry_after_seconds`/`reset_at` + `X-RateLimit-*`).
    @Test(.pinsItsDialect) func requestWindow() async throws {
        // moltbook.com's limits and 429 shapes (the other dialects' are in DialectTests).
        let sandbox = try await SandboxHarness.start(
            config: SandboxConfig(dialect: .moltbookCom), clock: SettableClock(fixed: fixedStart))
        defer { Task { await sandbox.stop() } }
        let client = try sandbox.client(key: try await sandbox.registeredAgent("reader"))
        var last: MoltbookResponse<Agent>?
        var refused: APIError?
        for _ in 0..<100 {
            do {
                last = try await client.me()
            } catch {
                refused = error
                break
            }
        }
        let error = try #require(refused)
        let window = try #require(last?.rateLimit)
        #expect(window.windowLimit == 60)
        #expect(window.windowRemaining == 0)
        #expect(error.code == .rateLimited)
        let wait = try #require(error.rateLimit.retryWait(now: sandbox.clock.now))
        #expect(error.rateLimit.retryAfterSeconds == wait)
        #expect(error.rateLimit.retryAfterHeader == wait.rounded(.up))
        #expect(wait > 0 && wait <= 60)
        #expect(error.rateLimit.windowRemaining == 0)
    }
}

/// 2026-03-01T10:00:00Z.
let fixedStart = Date(timeIntervalSince1970: 1_772_359_200)

/// Every body shape the sandbox can serve, with and without `Retry-After`: the client's wait
/// equals the server's.
@Suite("Forced 429 shapes")
struct ForcedShapeTests {
    /// A post cooldown with 20 minutes left reads as 1200 s whatever the shape and header.
    @Test(arguments: RateLimitShape.allCases, [true, false])
    func shape(_ shape: RateLimitShape, retryAfterHeader: Bool) async throws {
        let config = SandboxConfig(forcedRateLimitShape: shape, sendRetryAfter: retryAfterHeader)
        let sandbox = try await SandboxHarness.start(config: config, clock: SettableClock(fixed: fixedStart))
        defer { Task { await sandbox.stop() } }
        let client = try sandbox.client(key: try await sandbox.registeredAgent("shaped"))
        sandbox.clock.advance(by: 2 * 86_400)
        _ = try await client.createPost(.text(submolt: "general", title: "One", content: "x"))
        sandbox.clock.advance(by: 600)
        let error = try #require(
            await apiError {
                try await client.createPost(.text(submolt: "general", title: "Two", content: "y"))
            })
        #expect(error.code == .rateLimited)
        #expect(error.rateLimit.retryWait(now: sandbox.clock.now) == 1200)
        #expect((error.rateLimit.retryAfterHeader != nil) == retryAfterHeader)
    }
}
