import Foundation
import MoltbookAPI
import Recipes
import Testing

@testable import RateLimiting

@Suite("Server hints win")
struct HintAbsorptionTests {
    func limiter() -> Limiter { Limiter(rules: LimitRules.rules(for: .standard)) }

    func hint(headers: HTTPHeaders = [:], body: String? = nil) throws -> RateLimitHint {
        RateLimitHint.parse(headers: headers, body: try body.map { try JSONValue.parse(Data($0.utf8)) })
    }

    /// `Retry-After` on a 429 holds the action's class until then; the binding names the hint.
    @Test func retryAfterHeader() throws {
        var limiter = limiter()
        limiter.absorb(
            try hint(headers: ["Retry-After": "90"], body: #"{"success":false,"error":"slow down"}"#),
            status: 429, action: .comment, request: .write, at: t0)
        guard case .deferred(let until, let binding) = limiter.reserve([.write, .comment], at: at(10)) else {
            Issue.record("not held")
            return
        }
        #expect(until == at(90))
        #expect(binding.source == .serverHint)
        #expect(limiter.reserve([.write, .comment], at: at(90)) == .allowed)
    }

    /// `retry_after_minutes` (post cooldown) holds posts for that many minutes.
    @Test func retryAfterMinutes() throws {
        var limiter = limiter()
        limiter.absorb(
            try hint(
                body: #"{"success":false,"error":"You can only post once every 30 minutes","retry_after_minutes":27}"#),
            status: 429, action: .post, request: .write, at: t0)
        #expect(limiter.earliest([.post], at: t0).date == at(27 * 60))
    }

    /// `retry_after_seconds` with `daily_remaining`: the comment class waits and the daily budget re-syncs.
    @Test func commentCooldownAndDaily() throws {
        var limiter = limiter()
        limiter.absorb(
            try hint(body: #"{"success":false,"error":"x","retry_after_seconds":14,"daily_remaining":3}"#),
            status: 429, action: .comment, request: .write, at: t0)
        #expect(limiter.earliest([.comment], at: t0).date == at(14))
        #expect(limiter.tokens(.comment, at: at(14)) <= 3)
    }

    /// The generic window body (`remaining`/`reset_at`) holds the request class, not the action.
    @Test func genericWindowHoldsRequests() throws {
        var limiter = limiter()
        let body =
            #"{"statusCode":429,"message":"Rate limit exceeded","remaining":0,"reset_at":"2026-03-01T10:00:45Z","retry_after_seconds":45}"#
        let absorbed = limiter.absorb(try hint(body: body), status: 429, action: .vote, request: .write, at: t0)
        #expect(absorbed.held == [.write: at(45)])
        #expect(limiter.earliest([.write, .vote], at: t0).date == at(45))
        #expect(limiter.earliest([.read], at: t0).date == t0)
    }

    /// A hint earlier than the local limit does not shorten it: the later of the two wins.
    @Test func localLimitStillBinds() throws {
        var limiter = limiter()
        #expect(limiter.reserve([.write, .post], at: t0) == .allowed)
        limiter.absorb(try hint(headers: ["Retry-After": "5"]), status: 429, action: .post, request: .write, at: at(1))
        #expect(limiter.earliest([.post], at: at(1)).date == at(1_800))
    }

    /// `X-RateLimit-Remaining` below the local count re-syncs the request class; 0 holds it until the reset.
    @Test func windowResync() throws {
        var limiter = limiter()
        limiter.absorb(
            try hint(headers: [
                "X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "5",
                "X-RateLimit-Reset": "1772359230",
            ]),
            status: 200, action: nil, request: .read, at: t0)
        #expect(limiter.tokens(.read, at: t0) == 5)
        #expect(limiter.tokens(.read, at: at(30)) == 60)
        limiter.absorb(
            try hint(headers: ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1772359250"]),
            status: 200, action: nil, request: .read, at: t0)
        #expect(limiter.earliest([.read], at: t0).date == at(50))
    }

    /// A 429 without any wait uses the conservative default for its class.
    @Test func defaultWait() throws {
        var limiter = limiter()
        limiter.absorb(
            try hint(body: #"{"success":false,"error":"Too many"}"#), status: 429, action: .post,
            request: .write, at: t0)
        #expect(limiter.earliest([.post], at: t0).date == at(1_800))
    }

    /// When the server turns out stricter than the profile (posts every 60 min, not 30), the
    /// spacing it names is learned after the first 429, so no second 429 follows for that reason.
    @Test func learnsAStricterServer() throws {
        var limiter = limiter()
        #expect(limiter.reserve([.write, .post], at: t0) == .allowed)
        #expect(limiter.reserve([.write, .post], at: at(1_800)) == .allowed)
        // The server (now 1 per 60 min) refuses the second: 30 minutes left.
        let absorbed = limiter.absorb(
            try hint(
                body: #"{"success":false,"error":"You can only post once every 60 minutes","retry_after_minutes":30}"#),
            status: 429, action: .post, request: .write, reservedAt: at(1_800),
            at: at(1_800))
        #expect(absorbed.learned[.post] == 3_600)
        // The refused post was taken back from the post class; the write it cost stays counted.
        #expect(limiter.tokens(.write, at: at(1_800)) == 29)
        #expect(limiter.reserve([.write, .post], at: at(3_600)) == .allowed)
        guard case .deferred(let until, let binding) = limiter.reserve([.write, .post], at: at(5_400)) else {
            Issue.record("the learned spacing did not hold")
            return
        }
        #expect(until == at(7_200))
        #expect(binding.source == .learned)
    }
}

extension HintAbsorptionTests {
    /// A 429 on a follow whose headers say a window is spent (a bucket shared by every write of
    /// the key, or by every agent on one address; the standard `RateLimit-*` headers) holds the
    /// window's class until its reset and teaches no follow spacing (issue 33, observation 4: a
    /// shared bucket's 429 became a learned spacing of one follow a minute).
    @Test func aSpentWindowTeachesNoSpacing() throws {
        var limiter = limiter()
        #expect(limiter.reserve([.write, .follow], at: t0) == .allowed)
        var headers: HTTPHeaders = [:]
        headers.add(name: "RateLimit", value: "limit=60, remaining=0, reset=40")
        headers.add(name: "Retry-After", value: "40")
        let absorbed = limiter.absorb(
            RateLimitHint.parse(
                headers: headers, body: try JSONValue.parse(Data(#"{"error":"Too many requests"}"#.utf8))),
            status: 429, action: .follow, request: .write, reservedAt: t0, at: t0)
        #expect(absorbed.learned.isEmpty)
        #expect(limiter.learned.isEmpty)
        #expect(absorbed.held[.write] == at(40))
        #expect(limiter.earliest([.write, .follow], at: t0).date == at(40))
        #expect(limiter.reserve([.write, .follow], at: at(41)) == .allowed)
    }

    /// One window counted for reads and writes alike: once a write's answer names the limit and
    /// the reset a read's answer named, both classes are one bucket, and its remaining count and
    /// its exhaustion hold both (issue 33, observation 4).
    @Test func aWindowSharedByReadsAndWritesHoldsBoth() throws {
        var limiter = limiter()
        func window(remaining: Int) -> HTTPHeaders {
            var headers: HTTPHeaders = [:]
            headers.add(name: "RateLimit-Limit", value: "8")
            headers.add(name: "RateLimit-Remaining", value: String(remaining))
            headers.add(name: "RateLimit-Reset", value: "50")
            return headers
        }
        limiter.absorb(try hint(headers: window(remaining: 3)), status: 200, action: nil, request: .read, at: t0)
        #expect(limiter.reserve([.read], at: t0) == .allowed)
        // A write's answer: the same window, now spent. Reads wait for its reset too.
        limiter.absorb(try hint(headers: window(remaining: 0)), status: 200, action: nil, request: .write, at: t0)
        #expect(limiter.earliest([.read], at: t0).date == at(50))
        #expect(limiter.earliest([.write], at: t0).date == at(50))
        // A window of another limit (the reads' own) is not taken for the writes'.
        var separate = self.limiter()
        separate.absorb(try hint(headers: window(remaining: 0)), status: 200, action: nil, request: .read, at: t0)
        var other: HTTPHeaders = [:]
        other.add(name: "RateLimit-Limit", value: "30")
        other.add(name: "RateLimit-Remaining", value: "29")
        other.add(name: "RateLimit-Reset", value: "50")
        separate.absorb(try hint(headers: other), status: 200, action: nil, request: .write, at: t0)
        #expect(separate.earliest([.write], at: t0).date == t0)
    }

    /// The open-source server's 429 names minutes (`retryAfterMinutes`) for every limiter; when its
    /// headers say the request window is spent, it is that window, not a spacing of the vote.
    @Test func aSpentWindowWithMinutesTeachesNoSpacing() throws {
        var limiter = limiter()
        #expect(limiter.reserve([.write, .vote], at: t0) == .allowed)
        let absorbed = limiter.absorb(
            try hint(
                headers: ["X-RateLimit-Limit": "8", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1772359260"],
                body: #"{"success":false,"error":"Rate limit exceeded","retryAfter":60,"retryAfterMinutes":1}"#),
            status: 429, action: .vote, request: .write, reservedAt: t0, window: .write, at: t0)
        #expect(absorbed.learned.isEmpty)
        #expect(limiter.learned.isEmpty)
    }

    /// A 429 that a post made elsewhere caused (the server's cooldown runs from that post, not
    /// from this limiter's last one) teaches nothing: the server named its usual 30 minutes and
    /// asks for less than that. Nothing is learned, the post waits only for the hint.
    @Test func outsideWriteTeachesNothing() throws {
        var limiter = limiter()
        #expect(limiter.reserve([.write, .post], at: t0) == .allowed)
        // 5 h later a post made by hand 10 minutes ago makes the server refuse for 20 minutes.
        #expect(limiter.reserve([.write, .post], at: at(18_000)) == .allowed)
        let absorbed = limiter.absorb(
            try hint(
                body: #"{"success":false,"error":"You can only post once every 30 minutes","retry_after_minutes":20}"#),
            status: 429, action: .post, request: .write, reservedAt: at(18_000), at: at(18_000))
        #expect(absorbed.learned.isEmpty)
        #expect(limiter.learned.isEmpty)
        #expect(limiter.earliest([.post], at: at(18_000)).date == at(19_200))
    }

    /// A learned spacing is capped at the longest the documentation gives the class (2 h for
    /// posts), and lapses a day after the last surprise 429.
    @Test func learnedSpacingIsCappedAndLapses() throws {
        var limiter = limiter()
        #expect(limiter.reserve([.write, .post], at: t0) == .allowed)
        limiter.absorb(
            try hint(
                body: #"{"success":false,"error":"You can only post once every 6 hours","retry_after_minutes":360}"#),
            status: 429, action: .post, request: .write, reservedAt: t0, at: t0)
        #expect(limiter.learned[.post] == 7_200)
        // Kept across the stored form, with when it was learned.
        let stored = try Limiter(serialized: limiter.serialized())
        #expect(stored.learned[.post] == 7_200)
        #expect(stored.learnedAt[.post] == t0)
        limiter = stored
        #expect(limiter.reserve([.write, .post], at: at(86_400)) == .allowed)
        #expect(limiter.learned[.post] == nil)
    }
}

@Suite("Profiles")
struct ProfileTests {
    /// The first-24-hours profile applies from `created_at` and lifts after a day; unknown age is treated as young.
    @Test func newAgentProfile() {
        let created = t0
        #expect(LimitRules.profile(createdAt: created, at: at(3_600)).postInterval == 7_200)
        #expect(LimitRules.profile(createdAt: created, at: at(86_400)).postInterval == 1_800)
        #expect(LimitRules.profile(createdAt: nil, at: t0).commentsPerDay == 20)
        #expect(LimitRules.profileChange(createdAt: created) == at(86_400))
    }

    /// Switching profiles keeps what was recorded: a young agent's post still counts after the lift.
    @Test func profileSwitchKeepsState() {
        var limiter = Limiter(rules: LimitRules.rules(for: .newAgent))
        #expect(limiter.reserve([.write, .post], at: at(86_000)) == .allowed)
        limiter.setRules(LimitRules.rules(for: LimitRules.profile(createdAt: t0, at: at(86_400))))
        #expect(limiter.earliest([.post], at: at(86_400)).date == at(86_000 + 1_800))
    }

    /// Recipe overrides tighten the built-in numbers.
    @Test func overridesTighten() {
        var overrides = LimitOverrides()
        overrides.postInterval = nil
        let profile = LimitRules.profile(createdAt: at(-100_000), at: t0, overrides: overrides)
        #expect(profile == .standard)
        let rules = LimitRules.rules(for: profile)
        #expect(
            rules[.comment]?.map(\.description)
                == ["comment.cooldown: 1 per 20s", "comment.hourly: 50 per 1h", "comment.daily: 50 per 24h"])
    }
}
