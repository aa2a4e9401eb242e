import Foundation

/// Why a request was refused by a limit, in terms every 429 shape can be rendered from.
struct LimitRefusal: Sendable {
    /// `request`, `post`, `comment`, `submolt`, `verify` or `dm`.
    var kind: String
    var retryAfterSeconds: Int
    var resetAt: Date
    var error: String
    var hint: String
    var dailyRemaining: Int?
}

extension SandboxState {
    /// The limit profile that applies to an agent at `now` (new-agent profile during its first day).
    func limitProfile(of agentID: String, now: Date) -> SandboxLimitProfile {
        guard let agent = agents[agentID] else { return config.limits }
        return config.profile(createdAt: agent.createdAt, now: now)
    }

    /// Starts a new fixed window when the current one has passed. A clock that jumps backwards
    /// keeps the current window (it never mints requests).
    static func roll(_ window: inout RateWindow, windowSeconds: Int, now: Date) {
        if let start = window.start, now < start.addingTimeInterval(Double(windowSeconds)) { return }
        window.start = now
        window.count = 0
    }

    /// Counts a request in one of the agent's request windows; returns the window's end when refused.
    mutating func admit(agentID: String, window: RequestWindow, limit: Int?, windowSeconds: Int, now: Date) -> Date? {
        guard var agent = agents[agentID] else { return nil }
        let refusedUntil = Self.take(&agent[window], limit: limit, windowSeconds: windowSeconds, now: now)
        agents[agentID] = agent
        return refusedUntil
    }

    /// Takes one slot of `window`, or returns when it frees up.
    static func take(_ window: inout RateWindow, limit: Int?, windowSeconds: Int, now: Date) -> Date? {
        roll(&window, windowSeconds: windowSeconds, now: now)
        let resetAt = (window.start ?? now).addingTimeInterval(Double(windowSeconds))
        if let limit, window.count >= limit { return resetAt }
        window.count += 1
        return nil
    }

    /// The window's headers as `rate_limit_headers` names them: `X-RateLimit-*` (Unix-seconds
    /// reset), the IETF draft's `RateLimit-*` (the reset in seconds from now), or none.
    func styled(_ headers: [(String, String)], now: Date) -> [(String, String)] {
        switch config.rateLimitHeaders {
        case .x: return headers
        case .none: return []
        case .standard:
            return headers.map { name, value in
                let standard = name.replacingOccurrences(of: "X-RateLimit-", with: "RateLimit-")
                guard name == "X-RateLimit-Reset", let reset = Double(value) else { return (standard, value) }
                return (standard, String(max(0, Int((reset - now.timeIntervalSince1970).rounded(.up)))))
            }
        }
    }

    /// `X-RateLimit-Limit`, `-Remaining` and `-Reset` (Unix seconds) for a window.
    static func rateHeaders(_ window: RateWindow, limit: Int?, windowSeconds: Int, now: Date) -> [(String, String)] {
        let start = window.start ?? now
        let reset = SandboxTime.unixSeconds(start.addingTimeInterval(Double(windowSeconds)))
        let limitValue = limit ?? 1_000_000
        return [
            ("X-RateLimit-Limit", String(limitValue)),
            ("X-RateLimit-Remaining", String(max(0, limitValue - window.count))),
            ("X-RateLimit-Reset", String(reset)),
        ]
    }

    /// Renders a refusal as a 429 in its natural shape (or the configured forced one) and counts it.
    ///
    /// Natural shapes: moltbook.com's by limit; the OSS server's camelCase one; the minimal mock's
    /// `{"detail":"Rate limit exceeded"}`.
    mutating func rateLimited(_ refusal: LimitRefusal) -> APIResult {
        counters.rateLimited += 1
        counters.limitViolations += 1
        counters.rateLimitedByClass[refusal.kind, default: 0] += 1
        let seconds = refusal.retryAfterSeconds
        let natural: RateLimitShape
        switch (config.dialect, refusal.kind) {
        case (.moltbookCom, "post"), (.moltbookCom, "submolt"): natural = .postCooldown
        case (.moltbookCom, "comment"), (.moltbookCom, "dm"): natural = .commentCooldown
        case (.moltbookCom, _): natural = .window
        case (.oss, _): natural = .oss
        case (.minimalMock, _) where config.forcedRateLimitShape == nil:
            var result = APIResult.detail(429, "Rate limit exceeded")
            if config.sendRetryAfter { result.headers.append(("Retry-After", String(seconds))) }
            return result
        case (.minimalMock, _):
            natural = .window  // unused: the forced shape applies
        }
        let minutes = (seconds + 59) / 60
        var body: [String: JSON]
        switch config.forcedRateLimitShape ?? natural {
        case .window:
            body = [
                "statusCode": 429, "message": "Rate limit exceeded", "remaining": 0,
                "reset_at": .string(SandboxTime.iso(refusal.resetAt)), "retry_after_seconds": .int(seconds),
            ]
        case .windowError:
            body = [
                "success": false, "error": "Rate limit exceeded", "remaining": 0,
                "reset_at": .string(SandboxTime.iso(refusal.resetAt)), "retry_after_seconds": .int(seconds),
            ]
        case .postCooldown:
            body = [
                "success": false, "error": .string(refusal.error), "hint": .string(refusal.hint),
                "retry_after_minutes": .int(minutes),
            ]
            if refusal.kind == "submolt" { body["retry_after_seconds"] = .int(seconds) }
        case .commentCooldown:
            body = [
                "success": false, "error": .string(refusal.error), "hint": .string(refusal.hint),
                "retry_after_seconds": .int(seconds), "daily_remaining": .int(refusal.dailyRemaining ?? 0),
            ]
        case .oss:
            body = [
                "success": false, "error": .string(refusal.error), "code": "RATE_LIMITED",
                "hint": .string("Try again in \(seconds) seconds"), "retryAfter": .int(seconds),
                "retryAfterMinutes": .int(minutes),
            ]
        }
        var result = APIResult(status: 429, body: .object(body))
        if config.sendRetryAfter { result.headers.append(("Retry-After", String(seconds))) }
        return result
    }

    // MARK: Per-action limits

    /// The post cooldown refusal, or nil when the agent may post at `now`.
    func postRefusal(_ agentID: String, now: Date) -> LimitRefusal? {
        guard let agent = agents[agentID], let cooldown = limitProfile(of: agentID, now: now).postCooldownSeconds,
            let last = agent.postTimes.last
        else { return nil }
        let next = last.addingTimeInterval(Double(cooldown))
        guard now < next else { return nil }
        let wait = SandboxTime.secondsUntil(next, from: now)
        let minutes = (wait + 59) / 60
        return LimitRefusal(
            kind: "post", retryAfterSeconds: wait, resetAt: next,
            error: "You can only post once every \(SandboxWording.every(cooldown))",
            hint: "Wait \(SandboxWording.plural(minutes, "minute")) before posting again")
    }

    /// The comment cooldown or daily-cap refusal, or nil when the agent may comment at `now`.
    func commentRefusal(_ agentID: String, now: Date) -> LimitRefusal? {
        guard let agent = agents[agentID] else { return nil }
        let profile = limitProfile(of: agentID, now: now)
        let window = RollingWindow(times: agent.commentTimes, now: now)
        let remaining = profile.commentsPerDay.map { max(0, $0 - window.today.count) }
        if let refusal = window.dailyCap(
            profile.commentsPerDay, kind: "comment",
            error: { "You have reached your daily comment limit (\($0) per day)" })
        {
            return refusal
        }
        if let perHour = profile.commentsPerHour {
            let hourAgo = now.addingTimeInterval(-3600)
            let lastHour = agent.commentTimes.filter { $0 > hourAgo && $0 <= now }
            if lastHour.count >= perHour, let oldest = lastHour.first {
                let next = oldest.addingTimeInterval(3600)
                let wait = SandboxTime.secondsUntil(next, from: now)
                return LimitRefusal(
                    kind: "comment", retryAfterSeconds: wait, resetAt: next, error: "Too many comments, slow down",
                    hint: "Wait \(SandboxWording.plural((wait + 59) / 60, "minute")) before commenting again",
                    dailyRemaining: remaining)
            }
        }
        return window.cooldown(
            profile.commentCooldownSeconds, kind: "comment", remaining: remaining,
            error: { "You can only comment once every \(SandboxWording.plural($0, "second"))" },
            hint: { "Wait \(SandboxWording.plural($0, "second")) before commenting again" })
    }

    /// The direct-message cooldown or daily-cap refusal (requests and sends together), or nil.
    func dmRefusal(_ agentID: String, now: Date) -> LimitRefusal? {
        guard let agent = agents[agentID] else { return nil }
        let profile = limitProfile(of: agentID, now: now)
        let window = RollingWindow(times: agent.dmTimes, now: now)
        if let refusal = window.dailyCap(
            profile.dmsPerDay, kind: "dm", error: { "You have reached your daily direct message limit (\($0) per day)" }
        ) {
            return refusal
        }
        return window.cooldown(
            profile.dmCooldownSeconds, kind: "dm", remaining: profile.dmsPerDay.map { max(0, $0 - window.today.count) },
            error: { "You can only send a direct message once every \(SandboxWording.plural($0, "second"))" },
            hint: { "Wait \(SandboxWording.plural($0, "second")) before sending again" })
    }

    /// A class's admissions over the last day, and the two refusals comments and DMs share: the
    /// daily cap (rolling) and the cooldown after the last one.
    struct RollingWindow {
        let times: [Date]
        let now: Date
        let today: [Date]

        init(times: [Date], now: Date) {
            self.times = times
            self.now = now
            let dayAgo = now.addingTimeInterval(-86_400)
            today = times.filter { $0 > dayAgo && $0 <= now }
        }

        func dailyCap(_ cap: Int?, kind: String, error: (Int) -> String) -> LimitRefusal? {
            guard let cap, today.count >= cap, let oldest = today.first else { return nil }
            let next = oldest.addingTimeInterval(86_400)
            let wait = SandboxTime.secondsUntil(next, from: now)
            return LimitRefusal(
                kind: kind, retryAfterSeconds: wait, resetAt: next, error: error(cap),
                hint: "Try again in \(SandboxWording.plural((wait + 3599) / 3600, "hour"))", dailyRemaining: 0)
        }

        func cooldown(
            _ seconds: Int?, kind: String, remaining: Int?, error: (Int) -> String, hint: (Int) -> String
        ) -> LimitRefusal? {
            guard let seconds, let last = times.last else { return nil }
            let next = last.addingTimeInterval(Double(seconds))
            guard now < next else { return nil }
            let wait = SandboxTime.secondsUntil(next, from: now)
            return LimitRefusal(
                kind: kind, retryAfterSeconds: wait, resetAt: next, error: error(seconds), hint: hint(wait),
                dailyRemaining: remaining)
        }
    }

    /// The submolt-creation refusal (cooldown, or the new-agent total), or nil.
    func submoltRefusal(_ agentID: String, now: Date) -> LimitRefusal? {
        guard let agent = agents[agentID] else { return nil }
        let profile = limitProfile(of: agentID, now: now)
        if let total = profile.submoltsTotal, agent.submoltTimes.count >= total {
            let next = agent.createdAt.addingTimeInterval(Double(config.newAgentPeriodSeconds))
            let wait = SandboxTime.secondsUntil(next, from: now)
            return LimitRefusal(
                kind: "submolt", retryAfterSeconds: wait, resetAt: next,
                error: "New agents can only create \(SandboxWording.plural(total, "submolt")) in their first day",
                hint: "Wait \(SandboxWording.plural((wait + 59) / 60, "minute")) before creating another submolt")
        }
        if let cooldown = profile.submoltCooldownSeconds, let last = agent.submoltTimes.last {
            let next = last.addingTimeInterval(Double(cooldown))
            if now < next {
                let wait = SandboxTime.secondsUntil(next, from: now)
                return LimitRefusal(
                    kind: "submolt", retryAfterSeconds: wait, resetAt: next,
                    error: "You can only create a submolt once every \(SandboxWording.every(cooldown))",
                    hint: "Wait \(SandboxWording.plural((wait + 59) / 60, "minute")) before creating another submolt")
            }
        }
        return nil
    }

    /// Counts a `/verify` call; the refusal when more than the per-minute budget arrived.
    mutating func verifyRefusal(_ agentID: String, now: Date) -> LimitRefusal? {
        guard var agent = agents[agentID] else { return nil }
        let limit = limitProfile(of: agentID, now: now).verifyPerMinute
        let refusedUntil = Self.take(&agent.verifyWindow, limit: limit, windowSeconds: 60, now: now)
        agents[agentID] = agent
        guard let resetAt = refusedUntil else { return nil }
        let wait = SandboxTime.secondsUntil(resetAt, from: now)
        return LimitRefusal(
            kind: "verify", retryAfterSeconds: wait, resetAt: resetAt, error: "Rate limit exceeded",
            hint: "Too many verification attempts; wait \(SandboxWording.plural(wait, "second"))")
    }
}
