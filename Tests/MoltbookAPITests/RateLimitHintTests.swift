import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

@Suite("Rate-limit hints from every source")
struct RateLimitHintTests {
    /// `Retry-After` in seconds is the wait.
    @Test func retryAfterSeconds() {
        let hint = RateLimitHint.parse(headers: ["Retry-After": "120"], body: nil)
        #expect(hint.retryWait(now: fixtureNow) == 120)
    }

    /// `Retry-After` as an HTTP-date is measured against the server's `Date` header, not the local clock.
    @Test func retryAfterHTTPDate() {
        let headers: HTTPHeaders = [
            "Retry-After": "Sun, 01 Mar 2026 10:01:30 GMT", "Date": "Sun, 01 Mar 2026 10:00:00 GMT",
        ]
        let hint = RateLimitHint.parse(headers: headers, body: nil)
        #expect(hint.retryWait(now: fixtureNow.addingTimeInterval(3600)) == 90)
        let noDate = RateLimitHint.parse(headers: ["Retry-After": "Sun, 01 Mar 2026 10:01:30 GMT"], body: nil)
        #expect(noDate.retryWait(now: fixtureNow) == 90)
    }

    /// Body `retry_after_seconds` with `daily_remaining` (comment cooldown).
    @Test func commentCooldown() throws {
        let hint = RateLimitHint.parse(
            headers: [:], body: try JSONValue.parse(Fixtures.data("api/error-429-comment-cooldown.json")))
        #expect(hint.retryWait(now: fixtureNow) == 14)
        #expect(hint.dailyRemaining == 37)
    }

    /// Body `retry_after_minutes` is minutes, not seconds (post cooldown).
    @Test func postCooldownMinutes() throws {
        let hint = RateLimitHint.parse(
            headers: [:], body: try JSONValue.parse(Fixtures.data("api/error-429-post-cooldown.json")))
        #expect(hint.retryWait(now: fixtureNow) == 27.0 * 60)
    }

    /// Body `reset_at` is an absolute time; `remaining` is kept.
    @Test func genericWindowResetAt() throws {
        var body = try JSONValue.parse(Fixtures.data("api/error-429-generic.json"))
        // Without retry_after_seconds the wait comes from reset_at alone.
        if case .object(var object) = body {
            object["retry_after_seconds"] = nil
            body = .object(object)
        }
        let hint = RateLimitHint.parse(headers: [:], body: body)
        #expect(hint.retryWait(now: fixtureNow) == 45)
        #expect(hint.bodyRemaining == 0)
    }

    /// `X-RateLimit-Limit/Remaining/Reset` re-sync the request window; milliseconds are recognised.
    @Test(arguments: ["1772359230", "1772359230000"])
    func windowHeaders(reset: String) {
        let hint = RateLimitHint.parse(
            headers: ["X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset], body: nil)
        #expect(hint.windowLimit == 60)
        #expect(hint.windowRemaining == 0)
        #expect(hint.windowResetWait(now: fixtureNow) == 30)
        #expect(hint.retryWait(now: fixtureNow) == nil)
    }

    /// The IETF draft's standard headers, in each draft's form (issue 33, observation 4): the
    /// reset is seconds from now; `X-RateLimit-*` wins where both are sent.
    @Test(arguments: [
        ["RateLimit-Limit": "100", "RateLimit-Remaining": "0", "RateLimit-Reset": "42"],
        ["RateLimit": "limit=100, remaining=0, reset=42", "RateLimit-Policy": "100;w=60"],
        ["RateLimit": "\"default\";r=0;t=42", "RateLimit-Policy": "\"default\";q=100;w=60"],
    ])
    func standardHeaders(headers: [String: String]) {
        var fields: HTTPHeaders = [:]
        for (name, value) in headers { fields.add(name: name, value: value) }
        let hint = RateLimitHint.parse(headers: fields, body: nil)
        #expect(hint.windowLimit == 100)
        #expect(hint.windowRemaining == 0)
        #expect(hint.windowResetWait(now: fixtureNow) == 42)
        fields.add(name: "X-RateLimit-Remaining", value: "3")
        #expect(RateLimitHint.parse(headers: fields, body: nil).windowRemaining == 3)
    }

    /// The OSS camelCase fields are read too.
    @Test func ossCamelCase() throws {
        let hint = RateLimitHint.parse(headers: [:], body: try JSONValue.parse(Fixtures.data("api/error-429-oss.json")))
        #expect(hint.retryAfterSeconds == 60)
        #expect(hint.retryWait(now: fixtureNow) == 60)
    }

    /// Prose is the last resort ("once every 2.5 minutes").
    @Test func proseOnly() throws {
        let hint = RateLimitHint.parse(
            headers: [:], body: try JSONValue.parse(Fixtures.data("api/error-429-prose-only.json")))
        #expect(hint.retryWait(now: fixtureNow) == 150)
    }

    /// With several sources the largest wait wins (the server's hints win, and the longest cannot be early).
    @Test func largestWins() throws {
        let hint = RateLimitHint.parse(
            headers: ["Retry-After": "30"], body: try JSONValue.parse(Fixtures.data("api/error-429-post-cooldown.json"))
        )
        #expect(hint.retryWait(now: fixtureNow) == 27.0 * 60)
    }

    /// A response without hints is empty, and a 429 error carries the hint.
    @Test func hintTravelsWithTheError() async throws {
        #expect(RateLimitHint.parse(headers: ["Date": "Sun, 01 Mar 2026 10:00:00 GMT"], body: nil).isEmpty)
        let (client, _) = try fixtureClient(
            "error-429-comment-cooldown.json", status: 429, headers: ["Retry-After": "14"])
        let error = try #require(await apiError { try await client.createComment(postID: "p", content: "hi") })
        #expect(error.code == .rateLimited)
        #expect(error.rateLimit.retryWait(now: fixtureNow) == 14)
        #expect(error.rateLimit.dailyRemaining == 37)
    }

    /// The period a refusal's prose names, apart from how long this refusal lasts.
    @Test(
        arguments: [
            ("You can only post once every 30 minutes", 1_800.0), ("You can only comment once every 20 seconds", 20),
            ("You can only post once every hour", 3_600), ("once every 2.5 minutes", 150),
            ("Wait 27 minutes before posting again", nil), ("every", nil),
        ] as [(String, Double?)])
    func periodInProse(text: String, period: Double?) {
        #expect(RateLimitHint.periodInProse(text) == period)
    }
}
