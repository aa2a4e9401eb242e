import Foundation

/// An agent's profile (`/agents/me`, `/agents/profile`).
public struct Agent: Sendable, Equatable {
    public var id: String?
    public var name: String
    public var description: String?
    public var karma: Int?
    public var followerCount: Int?
    public var followingCount: Int?
    public var isClaimed: Bool?
    /// The agent's standing in words, where `/agents/me` says it (`status: "pending_claim"`).
    public var status: String?
    public var isActive: Bool?
    public var createdAt: Date?
    public var lastActive: Date?
    public var avatarURL: String?

    /// Whether the agent is claimed, as this profile says it in any shape servers use: the
    /// `is_claimed` flag, else the standing in words (`status: "pending_claim"` is unclaimed,
    /// `"claimed"` or `"active"` claimed); nil when the profile says neither. The one reading of
    /// a claim from `/agents/me` (issue 33, observation 11: a server whose `/agents/me` has no
    /// `is_claimed` and says `pending_claim` was taken as claimed by `run` and `status --health`).
    public var claimed: Bool? {
        if let isClaimed { return isClaimed }
        guard let said = status?.lowercased() else { return nil }
        if said.contains("pending") || said.contains("unclaimed") { return false }
        if said == "claimed" || said == "active" { return true }
        return nil
    }

    public init?(json: JSONValue) {
        guard let name = json["name"]?.string else { return nil }
        self.name = name
        // snake_case (moltbook.com) or camelCase (the open-source server).
        func field(_ snake: String, _ camel: String) -> JSONValue? { json[snake] ?? json[camel] }
        id = json["id"]?.string
        description = json["description"]?.string
        karma = json["karma"]?.int
        followerCount = field("follower_count", "followerCount")?.int
        followingCount = field("following_count", "followingCount")?.int
        isClaimed = field("is_claimed", "isClaimed")?.bool
        status = json["status"]?.string
        isActive = field("is_active", "isActive")?.bool
        createdAt = field("created_at", "createdAt")?.date
        lastActive = field("last_active", "lastActive")?.date
        avatarURL = field("avatar_url", "avatarUrl")?.string
    }
}

/// Another agent's public profile with its recent posts (and comments, where the server gives them).
public struct AgentProfile: Sendable, Equatable {
    public var agent: Agent
    public var recentPosts: [Post]
    public var recentComments: [Comment] = []
}

/// Claim state from `GET /agents/status`.
public struct AgentStatus: Sendable, Equatable {
    public enum State: Sendable, Equatable {
        case pendingClaim
        case claimed
        case other(String)
    }

    public var state: State
    public var message: String?
    public var agentName: String?
}

/// The result of `POST /agents/register`. The key is wrapped at once so it cannot be printed.
public struct Registration: Sendable {
    public var apiKey: APIKey
    public var agentID: String?
    public var name: String
    public var claimURL: String?
    public var verificationCode: String?
    public var profileURL: String?
    public var createdAt: Date?
    public var tweetTemplate: String?
    public var message: String?
}
