import Foundation

/// What the linter checks a recipe against.
public struct LintOptions: Sendable {
    /// The server limits (before the recipe's own overrides): `.standard` or `.newAgent`.
    public var profile: LimitProfile
    /// The instant the checks start from (the linter never reads the clock).
    public var from: Date
    /// How far ahead schedules are simulated, in seconds (queues must last this long).
    public var horizon: Int
    /// Items already consumed per queue file (resolved path), if known from state.
    public var queuePositions: [String: Int]

    public init(
        profile: LimitProfile = .standard, from: Date, horizon: Int = 7 * 86_400,
        queuePositions: [String: Int] = [:]
    ) {
        self.profile = profile
        self.from = from
        self.horizon = horizon
        self.queuePositions = queuePositions
    }
}

/// Moltbook's size limits, in characters as servers count them: UTF-16 code units (JavaScript's
/// `length`, what Node servers and their validators compare), so an emoji such as 🦞 counts 2
/// (issue 33, observation 11: a title of 160 × 🦞 passed lint and was refused).
public enum MoltbookSizeLimits {
    /// The length a server measures.
    public static func length(_ text: some StringProtocol) -> Int { text.utf16.count }

    public static let title = 300
    public static let content = 40_000
    public static let comment = 10_000
    /// A direct message, as Moltbook's messaging guide documents it (10–1000 characters; one
    /// 2026 field note saw 5000 accepted).
    public static let directMessage = 1_000
}
