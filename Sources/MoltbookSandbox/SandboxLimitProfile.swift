/// One set of limit numbers (established agents, or agents in their first 24 hours).
///
/// A nil count or interval switches that limit off.
public struct SandboxLimitProfile: Sendable, Codable, Equatable {
    /// Read requests (GET) allowed per `requestWindowSeconds`, per API key.
    public var readsPerWindow: Int?
    /// Write requests (POST/PUT/PATCH/DELETE) allowed per `requestWindowSeconds`, per API key.
    public var writesPerWindow: Int?
    /// Requests of any method per `requestWindowSeconds`, per API key, in one window shared by reads
    /// and writes (the OSS server's request limiter). When set, `readsPerWindow` and
    /// `writesPerWindow` are not used.
    public var requestsPerWindow: Int?
    public var requestWindowSeconds: Int
    /// Minimum seconds between two posts.
    public var postCooldownSeconds: Int?
    /// Minimum seconds between two comments.
    public var commentCooldownSeconds: Int?
    /// Comments allowed in any rolling 24 hours.
    public var commentsPerDay: Int?
    /// Comments allowed in any rolling hour (the OSS server's comment limiter).
    public var commentsPerHour: Int?
    /// Minimum seconds between two submolt creations.
    public var submoltCooldownSeconds: Int?
    /// Submolts an agent may create in total while this profile applies.
    public var submoltsTotal: Int?
    /// `POST /verify` calls allowed per 60 s.
    public var verifyPerMinute: Int?
    /// Minimum seconds between two direct messages (`POST /agents/dm/request` and `…/send`).
    /// Sandbox choice: moltbook.com says only "reasonable use".
    public var dmCooldownSeconds: Int?
    /// Direct messages (requests and sends) allowed in any rolling 24 hours.
    public var dmsPerDay: Int?

    public init(
        readsPerWindow: Int? = 60,
        writesPerWindow: Int? = 30,
        requestsPerWindow: Int? = nil,
        requestWindowSeconds: Int = 60,
        postCooldownSeconds: Int? = 1800,
        commentCooldownSeconds: Int? = 20,
        commentsPerDay: Int? = 50,
        commentsPerHour: Int? = nil,
        submoltCooldownSeconds: Int? = 3600,
        submoltsTotal: Int? = nil,
        verifyPerMinute: Int? = 30,
        dmCooldownSeconds: Int? = 10,
        dmsPerDay: Int? = 100
    ) {
        self.readsPerWindow = readsPerWindow
        self.writesPerWindow = writesPerWindow
        self.requestsPerWindow = requestsPerWindow
        self.requestWindowSeconds = requestWindowSeconds
        self.postCooldownSeconds = postCooldownSeconds
        self.commentCooldownSeconds = commentCooldownSeconds
        self.commentsPerDay = commentsPerDay
        self.commentsPerHour = commentsPerHour
        self.submoltCooldownSeconds = submoltCooldownSeconds
        self.submoltsTotal = submoltsTotal
        self.verifyPerMinute = verifyPerMinute
        self.dmCooldownSeconds = dmCooldownSeconds
        self.dmsPerDay = dmsPerDay
    }

    /// Established agents: the strictest current numbers (skill.md 1.12, RULES).
    public static let established = SandboxLimitProfile()

    /// Agents younger than 24 hours: 1 post / 2 h, comments 1 / 60 s and 20 / day, one submolt in total.
    public static let newAgent = SandboxLimitProfile(
        postCooldownSeconds: 7200,
        commentCooldownSeconds: 60,
        commentsPerDay: 20,
        submoltCooldownSeconds: 3600,
        submoltsTotal: 1
    )

    /// The OSS server (`moltbook/api` v1.0.0): 100 requests / 60 s in one window, 1 post / 30 min,
    /// 50 comments / rolling hour; no comment cooldown, daily cap, submolt or verify limit.
    public static let oss = SandboxLimitProfile(
        readsPerWindow: nil, writesPerWindow: nil, requestsPerWindow: 100, requestWindowSeconds: 60,
        postCooldownSeconds: 1800, commentCooldownSeconds: nil, commentsPerDay: nil, commentsPerHour: 50,
        submoltCooldownSeconds: nil, submoltsTotal: nil, verifyPerMinute: nil, dmCooldownSeconds: nil, dmsPerDay: nil
    )

    /// No limits at all (for tests and demos that are not about limits).
    public static let unlimited = SandboxLimitProfile(
        readsPerWindow: nil, writesPerWindow: nil, postCooldownSeconds: nil, commentCooldownSeconds: nil,
        commentsPerDay: nil, submoltCooldownSeconds: nil, submoltsTotal: nil, verifyPerMinute: nil,
        dmCooldownSeconds: nil, dmsPerDay: nil
    )

    enum CodingKeys: String, CodingKey {
        case readsPerWindow = "reads_per_window"
        case writesPerWindow = "writes_per_window"
        case requestsPerWindow = "requests_per_window"
        case requestWindowSeconds = "request_window_seconds"
        case postCooldownSeconds = "post_cooldown_seconds"
        case commentCooldownSeconds = "comment_cooldown_seconds"
        case commentsPerDay = "comments_per_day"
        case commentsPerHour = "comments_per_hour"
        case submoltCooldownSeconds = "submolt_cooldown_seconds"
        case submoltsTotal = "submolts_total"
        case verifyPerMinute = "verify_per_minute"
        case dmCooldownSeconds = "dm_cooldown_seconds"
        case dmsPerDay = "dms_per_day"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = SandboxLimitProfile()
        readsPerWindow = try c.value(.readsPerWindow, default: d.readsPerWindow)
        writesPerWindow = try c.value(.writesPerWindow, default: d.writesPerWindow)
        requestsPerWindow = try c.value(.requestsPerWindow, default: d.requestsPerWindow)
        requestWindowSeconds = try c.value(.requestWindowSeconds, default: d.requestWindowSeconds)
        postCooldownSeconds = try c.value(.postCooldownSeconds, default: d.postCooldownSeconds)
        commentCooldownSeconds = try c.value(.commentCooldownSeconds, default: d.commentCooldownSeconds)
        commentsPerDay = try c.value(.commentsPerDay, default: d.commentsPerDay)
        commentsPerHour = try c.value(.commentsPerHour, default: d.commentsPerHour)
        submoltCooldownSeconds = try c.value(.submoltCooldownSeconds, default: d.submoltCooldownSeconds)
        submoltsTotal = try c.value(.submoltsTotal, default: d.submoltsTotal)
        verifyPerMinute = try c.value(.verifyPerMinute, default: d.verifyPerMinute)
        dmCooldownSeconds = try c.value(.dmCooldownSeconds, default: d.dmCooldownSeconds)
        dmsPerDay = try c.value(.dmsPerDay, default: d.dmsPerDay)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(readsPerWindow, forKey: .readsPerWindow)
        try c.encode(writesPerWindow, forKey: .writesPerWindow)
        try c.encode(requestsPerWindow, forKey: .requestsPerWindow)
        try c.encode(requestWindowSeconds, forKey: .requestWindowSeconds)
        try c.encode(postCooldownSeconds, forKey: .postCooldownSeconds)
        try c.encode(commentCooldownSeconds, forKey: .commentCooldownSeconds)
        try c.encode(commentsPerDay, forKey: .commentsPerDay)
        try c.encode(commentsPerHour, forKey: .commentsPerHour)
        try c.encode(submoltCooldownSeconds, forKey: .submoltCooldownSeconds)
        try c.encode(submoltsTotal, forKey: .submoltsTotal)
        try c.encode(verifyPerMinute, forKey: .verifyPerMinute)
        try c.encode(dmCooldownSeconds, forKey: .dmCooldownSeconds)
        try c.encode(dmsPerDay, forKey: .dmsPerDay)
    }
}

extension KeyedDecodingContainer {
    /// The value at `key` when the key is present (an explicit `null` gives nil for optionals), else `fallback`.
    func value<T: Decodable>(_ key: Key, default fallback: T) throws -> T {
        contains(key) ? try decode(T.self, forKey: key) : fallback
    }
}
