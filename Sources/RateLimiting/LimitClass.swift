/// What a request counts against. Every request counts against `read` or `write`; an action
/// also counts against its own class (a comment is a `write` and a `comment`).
public enum LimitClass: String, Sendable, Codable, CaseIterable, Comparable {
    case read
    case write
    case post
    case comment
    case vote
    case follow
    case subscribe
    case submolt
    case verify
    /// Direct messages (issue 22): our own pacing, see `LimitRules.dmRules`. Last, so that the
    /// order of the older classes (and the limiter's stored bytes) stay as they were.
    case dm

    public static func < (lhs: LimitClass, rhs: LimitClass) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The longest spacing the documentation gives the class anywhere (moltbook-api.md §2.1):
    /// what a learned spacing is capped at. A post every 2 hours (new agents), a comment every
    /// 60 seconds (new agents), a submolt every hour, a verify answer every 2 seconds (30/min);
    /// other classes have no documented spacing and are capped at a minute (direct messages
    /// too: the reference asks only for "reasonable use").
    public var documentedMaxSpacing: Double {
        switch self {
        case .post: 7_200
        case .comment: 60
        case .submolt: 3_600
        case .verify: 2
        case .read, .write, .vote, .follow, .subscribe, .dm: 60
        }
    }

    /// The conservative wait after a 429 that named none (moltbook-api.md §2.2): 30 minutes for
    /// posts, an hour for submolts, 60 seconds for everything else (direct messages included).
    public var defaultRetryWait: Double {
        switch self {
        case .post: 1_800
        case .submolt: 3_600
        case .read, .write, .comment, .vote, .follow, .subscribe, .verify, .dm: 60
        }
    }
}
