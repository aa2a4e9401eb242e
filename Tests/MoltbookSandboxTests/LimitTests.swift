import Foundation
import MoltbookAPI
import MoltbookSandbox
import Testing

@Suite struct LimitTests {
    /// Established agents: a second post inside 30 min is 429 in the cooldown shape, with Retry-After, and not applied.
    @Test func postCooldown() throws {
        let driver = SandboxDriver(config: SandboxConfig(newAgentPeriodSeconds: 0))
        let key = driver.agent("Poster")
        let first = driver.post(key)
        #expect(!first.isEmpty)
        driver.advance(3 * 60 + 10)
        let refused = driver.call(.post, "/posts", key: key, json: ["submolt": "general", "title": "again"])
        #expect(refused.status == 429)
        #expect(refused["success"] == false)
        #expect(refused["error"] == "You can only post once every 30 minutes")
        #expect(refused["hint"] == "Wait 27 minutes before posting again")
        #expect(refused["retry_after_minutes"] == 27)
        #expect(refused.headers["Retry-After"] == "1610")
        #expect(driver.call(.get, "/posts", key: key)["posts"]?.arrayValue?.count == 1)
        let counters = driver.model.counters()
        #expect(counters.postsCreated == 1)
        #expect(counters.rateLimited == 1)
        #expect(counters.limitViolations == 1)
        #expect(counters.rateLimitedByClass["post"] == 1)
        driver.advance(1610)
        #expect(!driver.post(key, title: "later").isEmpty)
    }

    /// Comments: the 20 s cooldown answers 429 with retry_after_seconds and daily_remaining.
    @Test func commentCooldown() {
        let driver = SandboxDriver(config: SandboxConfig(newAgentPeriodSeconds: 0))
        let key = driver.agent("Chatty")
        let postID = driver.post(key)
        #expect(!driver.comment(key, on: postID, "one").isEmpty)
        driver.advance(5)
        let refused = driver.call(.post, "/posts/\(postID)/comments", key: key, json: ["content": "two"])
        #expect(refused.status == 429)
        #expect(refused["error"] == "You can only comment once every 20 seconds")
        #expect(refused["retry_after_seconds"] == 15)
        #expect(refused["daily_remaining"] == 49)
        #expect(refused["hint"]?.stringValue != nil)
        #expect(refused.headers["Retry-After"] == "15")
        #expect(driver.model.counters().commentsCreated == 1)
        driver.advance(15)
        #expect(!driver.comment(key, on: postID, "two").isEmpty)
    }

    /// The 51st comment in 24 hours hits the daily cap (daily_remaining 0) until the oldest ages out.
    @Test func commentDailyCap() {
        var limits = SandboxLimitProfile.established
        limits.writesPerWindow = nil
        let driver = SandboxDriver(config: SandboxConfig(limits: limits, newAgentPeriodSeconds: 0))
        let key = driver.agent("Daily")
        let postID = driver.post(key)
        for index in 0..<50 {
            #expect(!driver.comment(key, on: postID, "c\(index)").isEmpty)
            driver.advance(20)
        }
        let refused = driver.call(.post, "/posts/\(postID)/comments", key: key, json: ["content": "too many"])
        #expect(refused.status == 429)
        #expect(refused["daily_remaining"] == 0)
        #expect(refused["retry_after_seconds"] == .int(86_400 - 50 * 20))
        #expect(refused["error"]?.stringValue?.contains("daily") == true)
        driver.advance(86_400 - 50 * 20)
        #expect(!driver.comment(key, on: postID, "next day").isEmpty)
    }

    /// More than 60 reads in a window gives the generic 429 body with reset_at and Retry-After.
    @Test func requestWindow() throws {
        let driver = SandboxDriver()
        let key = driver.agent("Reader")
        for _ in 0..<60 { #expect(driver.call(.get, "/agents/me", key: key).status == 200) }
        driver.advance(10)
        let refused = driver.call(.get, "/agents/me", key: key)
        #expect(refused.status == 429)
        #expect(refused["statusCode"] == 429)
        #expect(refused["message"] == "Rate limit exceeded")
        #expect(refused["remaining"] == 0)
        #expect(refused["retry_after_seconds"] == 50)
        #expect(refused["reset_at"] == .string(SandboxTime.iso(SandboxDriver.t0.addingTimeInterval(60))))
        #expect(refused.headers["Retry-After"] == "50")
        #expect(refused.headers["X-RateLimit-Remaining"] == "0")
        // Writes have their own budget.
        #expect(driver.call(.patch, "/agents/me", key: key, json: ["description": "x"]).status == 200)
        driver.advance(50)
        #expect(driver.call(.get, "/agents/me", key: key).status == 200)
        #expect(driver.model.counters().rateLimitedByClass["request"] == 1)
    }

    /// Every API response carries X-RateLimit-Limit/Remaining/Reset for its read or write bucket.
    @Test func rateHeadersOnEveryResponse() {
        let driver = SandboxDriver()
        let key = driver.agent("Headers")
        let read = driver.call(.get, "/agents/me", key: key)
        #expect(read.headers["X-RateLimit-Limit"] == "60")
        #expect(read.headers["X-RateLimit-Remaining"] == "59")
        #expect(read.headers["X-RateLimit-Reset"] == String(Int(SandboxDriver.t0.timeIntervalSince1970) + 60))
        let write = driver.call(.patch, "/agents/me", key: key, json: ["description": "y"])
        #expect(write.headers["X-RateLimit-Limit"] == "30")
        #expect(write.headers["X-RateLimit-Remaining"] == "29")
        #expect(read.headers["Retry-After"] == nil)
    }

    /// Agents in their first 24 hours: posts 1/2 h with "2 hours" wording, comments 1/60 s and 20/day; then lifted.
    @Test func newAgentProfileAndExpiry() {
        let driver = SandboxDriver()
        let key = driver.agent("Newbie")
        let postID = driver.post(key)
        driver.advance(45 * 60)
        let refused = driver.call(.post, "/posts", key: key, json: ["submolt": "general", "title": "second"])
        #expect(refused["error"] == "You can only post once every 2 hours")
        #expect(refused["retry_after_minutes"] == 75)
        _ = driver.comment(key, on: postID, "first")
        driver.advance(30)
        let comment = driver.call(.post, "/posts/\(postID)/comments", key: key, json: ["content": "second"])
        #expect(comment["error"] == "You can only comment once every 60 seconds")
        #expect(comment["daily_remaining"] == 19)
        // 24 hours after registration the established profile applies.
        driver.advance(24 * 3600)
        #expect(!driver.post(key, title: "grown up").isEmpty)
        driver.advance(20)
        #expect(!driver.comment(key, on: postID, "quick one").isEmpty)
        driver.advance(20)
        #expect(!driver.comment(key, on: postID, "quick two").isEmpty)
    }

    /// New agents may create one submolt in total; established agents one per hour.
    @Test func submoltCreationLimits() {
        let driver = SandboxDriver()
        let key = driver.agent("Builder")
        let body: (String) -> JSON = { ["name": .string($0), "display_name": "D"] }
        #expect(driver.call(.post, "/submolts", key: key, json: body("first-one")).status == 201)
        driver.advance(2 * 3600)
        let refused = driver.call(.post, "/submolts", key: key, json: body("second-one"))
        #expect(refused.status == 429)
        #expect(refused["retry_after_seconds"] == .int(22 * 3600))
        driver.advance(22 * 3600)
        #expect(driver.call(.post, "/submolts", key: key, json: body("second-one")).status == 201)
        driver.advance(60)
        #expect(driver.call(.post, "/submolts", key: key, json: body("third-one")).status == 429)
        #expect(driver.model.counters().rateLimitedByClass["submolt"] == 2)
    }

    /// A forced shape renders every 429 that way (here the OSS camelCase shape for a post cooldown).
    @Test(arguments: RateLimitShape.allCases)
    func forcedShape(shape: RateLimitShape) {
        let driver = SandboxDriver(config: SandboxConfig(newAgentPeriodSeconds: 0, forcedRateLimitShape: shape))
        let key = driver.agent("Shaped")
        _ = driver.post(key)
        driver.advance(60)
        let refused = driver.call(.post, "/posts", key: key, json: ["submolt": "general", "title": "again"])
        #expect(refused.status == 429)
        switch shape {
        case .window: #expect(refused["statusCode"] == 429 && refused["retry_after_seconds"] == 1740)
        case .windowError: #expect(refused["error"] == "Rate limit exceeded" && refused["reset_at"] != nil)
        case .postCooldown: #expect(refused["retry_after_minutes"] == 29)
        case .commentCooldown: #expect(refused["retry_after_seconds"] == 1740 && refused["daily_remaining"] != nil)
        case .oss: #expect(refused["code"] == "RATE_LIMITED" && refused["retryAfter"] == 1740)
        }
    }

    /// /verify allows 30 calls per minute; the 31st is 429.
    @Test func verifyRate() {
        var limits = SandboxLimitProfile.established
        limits.writesPerWindow = nil
        let driver = SandboxDriver(config: SandboxConfig(limits: limits, newAgentPeriodSeconds: 0))
        let key = driver.agent("Guesser")
        let body: JSON = ["verification_code": "moltbook_verify_none", "answer": "1.00"]
        for _ in 0..<30 { #expect(driver.call(.post, "/verify", key: key, json: body).status == 404) }
        #expect(driver.call(.post, "/verify", key: key, json: body).status == 429)
        #expect(driver.model.counters().rateLimitedByClass["verify"] == 1)
    }
}
