import Foundation

/// Everything about the sandbox's behaviour that a test or demo may want to change.
///
/// Defaults are the real, current (strictest) numbers. In JSON (config file, `POST /_sandbox/config`)
/// keys are snake_case and every key is optional; a partial object updates only the keys it names.
public struct SandboxConfig: Sendable, Codable, Equatable {
    /// The server the sandbox imitates. Changing it also changes `limits` when they are the old
    /// dialect's `defaultLimits` (limits of your own stay).
    public var dialect: SandboxDialect {
        didSet {
            if limits == oldValue.defaultLimits { limits = dialect.defaultLimits }
        }
    }
    /// Limits for agents older than `newAgentPeriodSeconds` (all agents, in dialects without a
    /// new-agent profile). Defaults to `dialect.defaultLimits`.
    public var limits: SandboxLimitProfile
    /// Limits for agents younger than `newAgentPeriodSeconds` (counted from `created_at`).
    public var newAgentLimits: SandboxLimitProfile
    /// Length of the "new agent" period; 0 switches the new-agent profile off.
    public var newAgentPeriodSeconds: Int
    /// Unclaimed agents get 403 on writes (post, comment, vote, follow, subscribe, submolt create).
    public var requireClaim: Bool
    /// Agents are claimed as soon as they register.
    public var autoClaim: Bool
    /// Probability (0…1) that creating a post, comment or submolt returns a verification challenge.
    public var challengeRate: Double
    /// Whether every other write (a vote, a follow, a subscription, a direct message, a request approved) may be
    /// challenged too, at `challengeRate` (`challenge_every_write`; off: moltbook.com challenges content only).
    public var challengeEveryWrite = false
    /// The answer to a post or comment created without a challenge (`create_answer`): the
    /// dialect's object (default), only its id (`{"post_id": …}`), or only `{"success": true}`:
    /// shapes independent servers answer with (issue 33, observation 2).
    public var createAnswer: CreateAnswerShape = .object
    /// Post lists ignore `cursor` and `offset` and say nothing of a next page (`ignore_paging`):
    /// a server whose first page is all a client can see.
    public var ignorePaging = false
    /// `GET /posts?submolt=` and `/submolts/NAME/feed` list every submolt's posts
    /// (`ignore_submolt_filter`): a server that ignores the filter.
    public var ignoreSubmoltFilter = false
    /// How answers to challenges must be written (`challenge_answer_form`), and what the
    /// challenge's instructions say of it (issue 33, observation 6).
    public var challengeAnswerForm: ChallengeAnswerForm = .twoDecimals
    /// A suspended agent's reads are refused too (`suspension_blocks_reads`), `/agents/me` among
    /// them: a server that says "suspended" on the first read of a run.
    public var suspensionBlocksReads = false
    /// How the request window is reported (`rate_limit_headers`): `x` (`X-RateLimit-*`, the
    /// dialect's own), `standard` (the IETF draft's `RateLimit-Limit/-Remaining/-Reset`), `none`.
    public var rateLimitHeaders: RateLimitHeaderStyle = .x
    /// How `/agents/me` says whether the agent is claimed (`claim_shape`): `is_claimed` (the
    /// flag, the dialect's own) or `status` (no flag; `status: "pending_claim"` or `"claimed"`):
    /// a server whose profile says the claim in words (issue 33, observation 11).
    public var claimShape: ClaimShape = .flag
    /// Where direct messages are (`dm_shape`): `listed` (moltbook.com's: the check's `requests`
    /// and `messages` objects, `/agents/dm/requests`, `/conversations/ID`) or `in_conversations`
    /// (the check says `{has_new_messages, pending_requests: N}`, pending requests are the
    /// conversation list's `approved: false` entries, `/agents/dm/requests` and
    /// `/conversations/ID` answer 404, messages are at `/conversations/ID/messages`): issue 33,
    /// observation 8.
    public var dmShape: DMShape = .listed
    /// Whether a challenged post or comment is stored before its challenge is answered
    /// (`keep_unverified`, on: moltbook.com keeps it, pending and hidden). Off: a server that
    /// keeps nothing unverified (issue 33, observation 5): the challenged content is not stored
    /// and its answer names no id; a right answer clears that text, which the client must send
    /// again (then taken without a challenge); a wrong one leaves nothing.
    public var keepUnverified = true
    /// Obfuscation level of challenge texts: 0 plain … 3 fillers, junk and distractors.
    public var challengeObfuscation: Int
    /// Seconds to answer a post or comment challenge.
    public var challengeExpirySeconds: Int
    /// Seconds to answer a submolt challenge.
    public var submoltChallengeExpirySeconds: Int
    /// An agent whose last N challenges all failed is suspended; 0 switches suspension off.
    public var suspensionThreshold: Int
    /// Suspension length per offense (offense #1 uses the first); the last entry repeats.
    public var suspensionDurationsSeconds: [Int]
    /// Pending (unverified) or failed content is left out of feeds, lists and search.
    public var hidePendingContent: Bool
    /// `DELETE /posts/ID` removes the post (false: answers success but the post stays, as issue #40 saw).
    public var deleteRemovesPost: Bool
    /// When set, every 429 uses this body shape instead of the one that fits the limit.
    public var forcedRateLimitShape: RateLimitShape?
    /// Whether 429s carry a `Retry-After` header.
    public var sendRetryAfter: Bool
    /// Largest accepted avatar upload, in bytes.
    public var maxAvatarBytes: Int
    /// Faults queued when the model starts (and again on reset).
    public var faults: [FaultSpec]
    /// Refuse a post or comment whose text repeats the agent's earlier content (case, white
    /// space, punctuation and markup aside; comments across all posts): each repeat is an
    /// offense and suspends, as moltbook.com does for repeated content (moltbook-api.md §6.1).
    /// Off by default: the sandbox then only counts repeats (`duplicate_contents`).
    public var enforceDuplicates: Bool = false
    /// Suspension length per duplicate offense (#1 uses the first); the last entry repeats.
    public var duplicateSuspensionsSeconds: [Int] = [23 * 3_600, 7 * 86_400]
    /// Agents younger than this (from `created_at`) get 403 on every DM route, as on moltbook.com
    /// (moltbook-api.md §1.9); 0 lets every agent use DMs.
    public var dmMinAgeSeconds: Int
    /// Simulated other agents that comment, reply, mention and send DMs (off by default).
    public var simulation: SandboxSimulation

    public init(
        dialect: SandboxDialect = .moltbookCom,
        limits: SandboxLimitProfile? = nil,
        newAgentLimits: SandboxLimitProfile = .newAgent,
        newAgentPeriodSeconds: Int = 86_400,
        requireClaim: Bool = true,
        autoClaim: Bool = false,
        challengeRate: Double = 0,
        challengeObfuscation: Int = 3,
        challengeExpirySeconds: Int = 300,
        submoltChallengeExpirySeconds: Int = 30,
        suspensionThreshold: Int = 10,
        suspensionDurationsSeconds: [Int] = [86_400, 3 * 86_400, 7 * 86_400],
        hidePendingContent: Bool = true,
        deleteRemovesPost: Bool = true,
        forcedRateLimitShape: RateLimitShape? = nil,
        sendRetryAfter: Bool = true,
        maxAvatarBytes: Int = 1_048_576,
        faults: [FaultSpec] = [],
        dmMinAgeSeconds: Int = 86_400,
        simulation: SandboxSimulation = SandboxSimulation()
    ) {
        self.dialect = dialect
        self.limits = limits ?? dialect.defaultLimits
        self.newAgentLimits = newAgentLimits
        self.newAgentPeriodSeconds = newAgentPeriodSeconds
        self.requireClaim = requireClaim
        self.autoClaim = autoClaim
        self.challengeRate = challengeRate
        self.challengeObfuscation = challengeObfuscation
        self.challengeExpirySeconds = challengeExpirySeconds
        self.submoltChallengeExpirySeconds = submoltChallengeExpirySeconds
        self.suspensionThreshold = suspensionThreshold
        self.suspensionDurationsSeconds = suspensionDurationsSeconds
        self.hidePendingContent = hidePendingContent
        self.deleteRemovesPost = deleteRemovesPost
        self.forcedRateLimitShape = forcedRateLimitShape
        self.sendRetryAfter = sendRetryAfter
        self.maxAvatarBytes = maxAvatarBytes
        self.faults = faults
        self.dmMinAgeSeconds = dmMinAgeSeconds
        self.simulation = simulation
    }

    /// The profile that applies to an agent created at `createdAt`, at `now`.
    public func profile(createdAt: Date, now: Date) -> SandboxLimitProfile {
        isNewAgent(createdAt: createdAt, now: now) ? newAgentLimits : limits
    }

    /// Whether the new-agent profile applies (never in dialects without one).
    func isNewAgent(createdAt: Date, now: Date) -> Bool {
        dialect.hasNewAgentProfile && now.timeIntervalSince(createdAt) < Double(newAgentPeriodSeconds)
    }

    /// This config with the keys of a JSON object laid over it (unknown keys are ignored).
    ///
    /// A patch naming a `dialect` but no `limits` moves limits that were the old dialect's
    /// defaults to the new dialect's (as setting `dialect` does).
    public func updated(withJSON patch: Data) throws -> SandboxConfig {
        let encoder = JSONEncoder()
        let current = try JSONDecoder().decode(JSON.self, from: encoder.encode(self))
        let overlay = try JSONDecoder().decode(JSON.self, from: patch)
        guard case .object(let fields) = overlay else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "config must be a JSON object"))
        }
        var updated = try JSONDecoder().decode(SandboxConfig.self, from: current.merging(overlay).serialized())
        if fields["dialect"] != nil, fields["limits"] == nil, limits == dialect.defaultLimits {
            updated.limits = updated.dialect.defaultLimits
        }
        return updated
    }

    enum CodingKeys: String, CodingKey {
        case dialect
        case limits
        case newAgentLimits = "new_agent_limits"
        case newAgentPeriodSeconds = "new_agent_period_seconds"
        case requireClaim = "require_claim"
        case autoClaim = "auto_claim"
        case challengeRate = "challenge_rate"
        case challengeEveryWrite = "challenge_every_write"
        case createAnswer = "create_answer"
        case ignorePaging = "ignore_paging"
        case ignoreSubmoltFilter = "ignore_submolt_filter"
        case challengeAnswerForm = "challenge_answer_form"
        case suspensionBlocksReads = "suspension_blocks_reads"
        case rateLimitHeaders = "rate_limit_headers"
        case claimShape = "claim_shape"
        case dmShape = "dm_shape"
        case keepUnverified = "keep_unverified"
        case challengeObfuscation = "challenge_obfuscation"
        case challengeExpirySeconds = "challenge_expiry_seconds"
        case submoltChallengeExpirySeconds = "submolt_challenge_expiry_seconds"
        case suspensionThreshold = "suspension_threshold"
        case suspensionDurationsSeconds = "suspension_durations_seconds"
        case hidePendingContent = "hide_pending_content"
        case deleteRemovesPost = "delete_removes_post"
        case forcedRateLimitShape = "forced_rate_limit_shape"
        case sendRetryAfter = "send_retry_after"
        case maxAvatarBytes = "max_avatar_bytes"
        case faults
        case enforceDuplicates = "enforce_duplicates"
        case duplicateSuspensionsSeconds = "duplicate_suspensions_seconds"
        case dmMinAgeSeconds = "dm_min_age_seconds"
        case simulation
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = SandboxConfig()
        dialect = try c.value(.dialect, default: d.dialect)
        if dialect != .moltbookCom, c.contains(.limits) {
            // Keys the object leaves out come from the dialect's defaults.
            let base = try JSONDecoder().decode(JSON.self, from: JSONEncoder().encode(dialect.defaultLimits))
            let patch = try c.decode(JSON.self, forKey: .limits)
            limits = try JSONDecoder().decode(SandboxLimitProfile.self, from: base.merging(patch).serialized())
        } else {
            limits = try c.value(.limits, default: dialect.defaultLimits)
        }
        newAgentLimits = try c.value(.newAgentLimits, default: d.newAgentLimits)
        newAgentPeriodSeconds = try c.value(.newAgentPeriodSeconds, default: d.newAgentPeriodSeconds)
        requireClaim = try c.value(.requireClaim, default: d.requireClaim)
        autoClaim = try c.value(.autoClaim, default: d.autoClaim)
        challengeRate = try c.value(.challengeRate, default: d.challengeRate)
        challengeEveryWrite = try c.value(.challengeEveryWrite, default: d.challengeEveryWrite)
        createAnswer = try c.value(.createAnswer, default: d.createAnswer)
        ignorePaging = try c.value(.ignorePaging, default: d.ignorePaging)
        ignoreSubmoltFilter = try c.value(.ignoreSubmoltFilter, default: d.ignoreSubmoltFilter)
        challengeAnswerForm = try c.value(.challengeAnswerForm, default: d.challengeAnswerForm)
        suspensionBlocksReads = try c.value(.suspensionBlocksReads, default: d.suspensionBlocksReads)
        rateLimitHeaders = try c.value(.rateLimitHeaders, default: d.rateLimitHeaders)
        claimShape = try c.value(.claimShape, default: d.claimShape)
        dmShape = try c.value(.dmShape, default: d.dmShape)
        keepUnverified = try c.value(.keepUnverified, default: d.keepUnverified)
        challengeObfuscation = try c.value(.challengeObfuscation, default: d.challengeObfuscation)
        challengeExpirySeconds = try c.value(.challengeExpirySeconds, default: d.challengeExpirySeconds)
        submoltChallengeExpirySeconds =
            try c.value(.submoltChallengeExpirySeconds, default: d.submoltChallengeExpirySeconds)
        suspensionThreshold = try c.value(.suspensionThreshold, default: d.suspensionThreshold)
        suspensionDurationsSeconds = try c.value(.suspensionDurationsSeconds, default: d.suspensionDurationsSeconds)
        hidePendingContent = try c.value(.hidePendingContent, default: d.hidePendingContent)
        deleteRemovesPost = try c.value(.deleteRemovesPost, default: d.deleteRemovesPost)
        forcedRateLimitShape = try c.value(.forcedRateLimitShape, default: d.forcedRateLimitShape)
        sendRetryAfter = try c.value(.sendRetryAfter, default: d.sendRetryAfter)
        maxAvatarBytes = try c.value(.maxAvatarBytes, default: d.maxAvatarBytes)
        faults = try c.value(.faults, default: d.faults)
        enforceDuplicates = try c.value(.enforceDuplicates, default: d.enforceDuplicates)
        duplicateSuspensionsSeconds = try c.value(.duplicateSuspensionsSeconds, default: d.duplicateSuspensionsSeconds)
        dmMinAgeSeconds = try c.value(.dmMinAgeSeconds, default: d.dmMinAgeSeconds)
        simulation = try c.value(.simulation, default: d.simulation)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(dialect, forKey: .dialect)
        try c.encode(limits, forKey: .limits)
        try c.encode(newAgentLimits, forKey: .newAgentLimits)
        try c.encode(newAgentPeriodSeconds, forKey: .newAgentPeriodSeconds)
        try c.encode(requireClaim, forKey: .requireClaim)
        try c.encode(autoClaim, forKey: .autoClaim)
        try c.encode(challengeRate, forKey: .challengeRate)
        try c.encode(challengeEveryWrite, forKey: .challengeEveryWrite)
        try c.encode(createAnswer, forKey: .createAnswer)
        try c.encode(ignorePaging, forKey: .ignorePaging)
        try c.encode(ignoreSubmoltFilter, forKey: .ignoreSubmoltFilter)
        try c.encode(challengeAnswerForm, forKey: .challengeAnswerForm)
        try c.encode(suspensionBlocksReads, forKey: .suspensionBlocksReads)
        try c.encode(rateLimitHeaders, forKey: .rateLimitHeaders)
        try c.encode(claimShape, forKey: .claimShape)
        try c.encode(dmShape, forKey: .dmShape)
        try c.encode(keepUnverified, forKey: .keepUnverified)
        try c.encode(challengeObfuscation, forKey: .challengeObfuscation)
        try c.encode(challengeExpirySeconds, forKey: .challengeExpirySeconds)
        try c.encode(submoltChallengeExpirySeconds, forKey: .submoltChallengeExpirySeconds)
        try c.encode(suspensionThreshold, forKey: .suspensionThreshold)
        try c.encode(suspensionDurationsSeconds, forKey: .suspensionDurationsSeconds)
        try c.encode(hidePendingContent, forKey: .hidePendingContent)
        try c.encode(deleteRemovesPost, forKey: .deleteRemovesPost)
        try c.encode(forcedRateLimitShape, forKey: .forcedRateLimitShape)
        try c.encode(sendRetryAfter, forKey: .sendRetryAfter)
        try c.encode(maxAvatarBytes, forKey: .maxAvatarBytes)
        try c.encode(faults, forKey: .faults)
        try c.encode(enforceDuplicates, forKey: .enforceDuplicates)
        try c.encode(duplicateSuspensionsSeconds, forKey: .duplicateSuspensionsSeconds)
        try c.encode(dmMinAgeSeconds, forKey: .dmMinAgeSeconds)
        try c.encode(simulation, forKey: .simulation)
    }
}

/// The documented 429 body shapes (moltbook-api.md §2.2).
public enum RateLimitShape: String, Sendable, Codable, Equatable, CaseIterable {
    /// `{"statusCode":429,"message":"Rate limit exceeded","remaining":0,"reset_at":…,"retry_after_seconds":N}`.
    case window
    /// Hivebook's variant: `{"success":false,"error":"Rate limit exceeded","remaining","reset_at","retry_after_seconds"}`.
    case windowError = "window_error"
    /// `{"success":false,"error":"You can only post once every 30 minutes","hint":…,"retry_after_minutes":N}`.
    case postCooldown = "post_cooldown"
    /// `{"success":false,"error":…,"hint":…,"retry_after_seconds":N,"daily_remaining":M}`.
    case commentCooldown = "comment_cooldown"
    /// The open-source server's camelCase shape: `{success:false,error,code:"RATE_LIMITED",hint,retryAfter,retryAfterMinutes}`.
    case oss
}

/// Where the sandbox serves direct messages (`SandboxConfig.dmShape`).
public enum DMShape: String, Sendable, Codable, Equatable, CaseIterable {
    case listed
    case inConversations = "in_conversations"
}

/// How `/agents/me` says the claim (`SandboxConfig.claimShape`).
public enum ClaimShape: String, Sendable, Codable, Equatable, CaseIterable {
    /// `is_claimed` (`isClaimed` in the open-source dialect).
    case flag = "is_claimed"
    /// No flag: `status: "pending_claim"` or `"claimed"`.
    case status

    /// `fields` (an agent's profile) with the claim said this way.
    func render(_ fields: [String: JSON], claimed: Bool) -> [String: JSON] {
        guard self == .status else { return fields }
        var fields = fields
        fields["is_claimed"] = nil
        fields["isClaimed"] = nil
        fields["status"] = .string(claimed ? "claimed" : "pending_claim")
        return fields
    }
}

/// How the sandbox answers a create that needs no challenge (`SandboxConfig.createAnswer`).
public enum CreateAnswerShape: String, Sendable, Codable, Equatable, CaseIterable {
    /// The dialect's own answer, with the created object.
    case object
    /// `{"post_id": "…"}` / `{"comment_id": "…"}`, HTTP 200, nothing else.
    case idOnly = "id_only"
    /// `{"success": true}`, HTTP 200: created, its id not given.
    case successOnly = "success_only"

    /// The answer for a created `resource` (`post`, `comment`) with `id`; nil for `.object`.
    func answer(resource: String, id: String) -> APIResult? {
        switch self {
        case .object: nil
        case .idOnly: .ok(["\(resource)_id": .string(id)], status: 200)
        case .successOnly: .ok(["success": .bool(true)], status: 200)
        }
    }
}

/// How a challenge's answer must be written (`SandboxConfig.challengeAnswerForm`).
public enum ChallengeAnswerForm: String, Sendable, Codable, Equatable, CaseIterable {
    /// Moltbook's: two decimals (`"15.00"`), said in the instructions; graded to the cent.
    case twoDecimals = "two_decimals"
    /// A whole number (`"15"`), said in the instructions; graded as a string, so `"15.00"` is wrong.
    case wholeNumber = "whole_number"
    /// Graded as a whole number's string, but the instructions do not say so: a client cannot
    /// know the form and should decline.
    case unstated

    /// The instructions sent with a challenge; `route` names where the answer goes, if they say.
    func instructions(route: String?) -> String {
        let form =
            switch self {
            case .twoDecimals: " (with 2 decimal places, e.g., '525.00')"
            case .wholeNumber: " as a whole number, e.g., '525'"
            case .unstated: ""
            }
        return "Solve the math problem and respond with ONLY the number\(form)"
            + (route.map { ". Send it to \($0)." } ?? "")
    }

    /// Whether `raw` (read as `given`) answers a challenge whose answer is `expected`.
    func accepts(_ raw: JSON, _ given: Decimal, _ expected: Decimal) -> Bool {
        switch self {
        case .twoDecimals:
            return SandboxDecimal.sameToCents(given, expected)
        case .wholeNumber, .unstated:
            let text: String? =
                switch raw {
                case .string(let text): text.trimmingCharacters(in: .whitespaces)
                case .number: NSDecimalNumber(decimal: given).stringValue
                default: nil
                }
            return text == NSDecimalNumber(decimal: expected).stringValue
        }
    }
}

/// How the sandbox reports a request window (`SandboxConfig.rateLimitHeaders`).
public enum RateLimitHeaderStyle: String, Sendable, Codable, Equatable, CaseIterable {
    case x
    case standard
    case none
}
