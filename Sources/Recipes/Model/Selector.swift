/// Picks target posts from a feed or search, filters them, and caps how many one run acts on.
public struct Selector: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        case global
        case personal
        case submolt(String)
        case search(query: String)
    }

    public enum Sort: String, Sendable, Equatable, CaseIterable {
        case hot, new, top, rising
    }

    public var source: Source
    public var sort: Sort?
    /// How many items to fetch.
    public var limit: Int
    /// Regular expressions the title / content must match.
    public var titleMatches: Located<String>?
    public var contentMatches: Located<String>?
    /// Only these authors, if non-empty.
    public var authors: [String]
    public var excludeAuthors: [String]
    /// Skip the agent's own posts (default true).
    public var notMine: Bool
    public var minScore: Int?
    /// Skip posts older than this many seconds.
    public var maxAge: Int?
    /// At most this many targets per run (default 1).
    public var maxPerRun: Int
    public var mark: Mark
}
