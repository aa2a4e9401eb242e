/// Rate limits as data: intervals in seconds, counts per window. The built-ins are the strictest known server limits.
public struct LimitProfile: Sendable, Equatable, Codable {
    /// Minimum seconds between posts.
    public var postInterval: Int
    /// Minimum seconds between comments.
    public var commentInterval: Int
    public var commentsPerHour: Int
    public var commentsPerDay: Int
    public var readsPerMinute: Int
    public var writesPerMinute: Int
    /// Minimum seconds between submolt creations.
    public var submoltInterval: Int

    public init(
        postInterval: Int = 1_800, commentInterval: Int = 20, commentsPerHour: Int = 50,
        commentsPerDay: Int = 50, readsPerMinute: Int = 60, writesPerMinute: Int = 30, submoltInterval: Int = 3_600
    ) {
        self.postInterval = postInterval
        self.commentInterval = commentInterval
        self.commentsPerHour = commentsPerHour
        self.commentsPerDay = commentsPerDay
        self.readsPerMinute = readsPerMinute
        self.writesPerMinute = writesPerMinute
        self.submoltInterval = submoltInterval
    }

    /// 1 post / 30 min; comments 1 / 20 s, 50 / hour, 50 / day; 60 reads + 30 writes / min; submolts 1 / hour.
    public static let standard = LimitProfile()
    /// An agent's first 24 hours: 1 post / 2 h; comments 1 / 60 s and 20 / day.
    public static let newAgent = LimitProfile(postInterval: 7_200, commentInterval: 60, commentsPerDay: 20)

    /// This profile with a recipe's overrides applied (they may only tighten unless the recipe says otherwise;
    /// the decoder has already enforced that).
    public func applying(_ overrides: LimitOverrides) -> LimitProfile {
        var result = self
        if let value = overrides.postInterval?.value {
            result.postInterval = overrides.loosen ? value : max(value, postInterval)
        }
        if let value = overrides.commentInterval?.value {
            result.commentInterval = overrides.loosen ? value : max(value, commentInterval)
        }
        if let value = overrides.commentsPerHour?.value {
            result.commentsPerHour = overrides.loosen ? value : min(value, commentsPerHour)
        }
        if let value = overrides.commentsPerDay?.value {
            result.commentsPerDay = overrides.loosen ? value : min(value, commentsPerDay)
        }
        if let value = overrides.readsPerMinute?.value {
            result.readsPerMinute = overrides.loosen ? value : min(value, readsPerMinute)
        }
        if let value = overrides.writesPerMinute?.value {
            result.writesPerMinute = overrides.loosen ? value : min(value, writesPerMinute)
        }
        return result
    }
}

/// A recipe's `limits:` block.
public struct LimitOverrides: Sendable, Equatable {
    public var postInterval: Located<Int>?
    public var commentInterval: Located<Int>?
    public var commentsPerHour: Located<Int>?
    public var commentsPerDay: Located<Int>?
    public var readsPerMinute: Located<Int>?
    public var writesPerMinute: Located<Int>?
    /// `i_know_the_server_limits: true`: overrides may loosen the built-in profile.
    public var loosen: Bool

    public init() { loosen = false }
}
