/// What the sandbox saw and did, for assertions in tests and demos (`GET /_sandbox/counters`).
public struct SandboxCounters: Sendable, Codable, Equatable {
    /// API requests handled (admin requests excluded).
    public var requestsTotal = 0
    /// GET requests.
    public var reads = 0
    /// POST/PUT/PATCH/DELETE requests.
    public var writes = 0
    /// 429 responses served.
    public var rateLimited = 0
    /// 429 responses served, by limit: `request`, `post`, `comment`, `submolt`, `verify`.
    public var rateLimitedByClass: [String: Int] = [:]
    /// Requests that arrived while a limit forbade them.
    public var limitViolations = 0
    /// Posts equal (title, content) to an earlier post by the same agent, or comments equal
    /// (post, parent, content) to an earlier one by the same agent.
    public var duplicateContents = 0
    public var postsCreated = 0
    public var commentsCreated = 0
    public var submoltsCreated = 0
    /// Votes that created a new vote (`upvoted`/`downvoted`).
    public var votesCast = 0
    /// Votes toggled off by repeating them (`removed`).
    public var votesRemoved = 0
    /// Votes switched to the opposite direction (`changed`).
    public var votesChanged = 0
    public var challengesIssued = 0
    public var challengesVerified = 0
    /// Wrong answers.
    public var challengesFailed = 0
    /// Challenged posts and comments not stored (`keep_unverified: false`).
    public var challengedNotKept = 0
    /// Challenges whose window passed without a right answer.
    public var challengesExpired = 0
    public var suspensions = 0
    /// Posts and comments refused as duplicates of the agent's earlier content (`enforce_duplicates`).
    public var duplicateRefusals = 0
    /// Writes refused because the agent was suspended.
    public var suspendedRequests = 0
    /// Writes refused because the agent was not claimed.
    public var unclaimedWrites = 0
    public var faultsInjected = 0
    /// 401s for a missing or unknown key (injected `auth_wave` 401s count as faults, not here).
    public var authFailures = 0
    /// API requests per agent name (authenticated requests only).
    public var requestsByAgent: [String: Int] = [:]
    /// API requests per agent name and endpoint, the endpoint as `METHOD /path` with `:id` for
    /// parameters (`"GET /home"`, `"POST /posts/:id/comments"`); refused requests count too.
    public var requestsByAgentEndpoint: [String: [String: Int]] = [:]
    /// When each agent read `GET /home` (ISO-8601, on the model's clock), oldest first; the last
    /// `homeReadsKept` per agent.
    public var homeReads: [String: [String]] = [:]
    /// Notifications created (for agents that are not simulated).
    public var notificationsCreated = 0
    /// Notifications marked read (`read-by-post`, `read-all`, and a DM request's once it is decided).
    public var notificationsMarkedRead = 0
    /// DM requests and messages accepted from the API (simulated agents' are in `simulatedEvents`).
    public var dmRequests = 0
    public var dmMessages = 0
    /// Requests to DM routes refused because the agent was younger than `dm_min_age_seconds`.
    public var dmAgeRefusals = 0
    /// What the simulated agents did, by kind: `comment`, `reply`, `mention_post`, `upvote`,
    /// `dm_request`, `dm_approve`, `dm_message`, `dm_answer`.
    public var simulatedEvents: [String: Int] = [:]

    /// How many `GET /home` instants `homeReads` keeps per agent.
    public static let homeReadsKept = 10_000

    public init() {}

    enum CodingKeys: String, CodingKey {
        case requestsTotal = "requests_total"
        case reads
        case writes
        case rateLimited = "rate_limited"
        case rateLimitedByClass = "rate_limited_by_class"
        case limitViolations = "limit_violations"
        case duplicateContents = "duplicate_contents"
        case postsCreated = "posts_created"
        case commentsCreated = "comments_created"
        case submoltsCreated = "submolts_created"
        case votesCast = "votes_cast"
        case votesRemoved = "votes_removed"
        case votesChanged = "votes_changed"
        case challengesIssued = "challenges_issued"
        case challengesVerified = "challenges_verified"
        case challengesFailed = "challenges_failed"
        case challengedNotKept = "challenged_not_kept"
        case challengesExpired = "challenges_expired"
        case suspensions
        case duplicateRefusals = "duplicate_refusals"
        case suspendedRequests = "suspended_requests"
        case unclaimedWrites = "unclaimed_writes"
        case faultsInjected = "faults_injected"
        case authFailures = "auth_failures"
        case requestsByAgent = "requests_by_agent"
        case requestsByAgentEndpoint = "requests_by_agent_endpoint"
        case homeReads = "home_reads"
        case notificationsCreated = "notifications_created"
        case notificationsMarkedRead = "notifications_marked_read"
        case dmRequests = "dm_requests"
        case dmMessages = "dm_messages"
        case dmAgeRefusals = "dm_age_refusals"
        case simulatedEvents = "simulated_events"
    }
}
