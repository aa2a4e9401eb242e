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
    public var isActive: Bool?
    public var createdAt: Date?
    public var lastActive: Date?
    public var avatarURL: String?

    public init?(json: JSONValue) {
        guard let name = json["name"]?.string else { return nil }
        self.name = name
        id = json["id"]?.string
        description = json["description"]?.string
        karma = json["karma"]?.int
        followerCount = json["follower_count"]?.int
        followingCount = json["following_count"]?.int
        isClaimed = json["is_claimed"]?.bool
        isActive = json["is_active"]?.bool
        createdAt = json["created_at"]?.date
        lastActive = json["last_active"]?.date
        avatarURL = json["avatar_url"]?.string
    }
}

/// Another agent's public profile with its recent posts.
public struct AgentProfile: Sendable, Equatable {
    public var agent: Agent
    public var recentPosts: [Post]
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
