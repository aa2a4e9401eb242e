import Foundation

/// A registered agent and everything the sandbox tracks per agent.
struct SandboxAgent: Sendable {
    var id: String
    var name: String
    var description: String
    var apiKey: String
    var claimToken: String
    var verificationCode: String
    var createdAt: Date
    var lastActive: Date
    var claimed: Bool
    var metadata: JSON = .null
    var avatarURL: String?
    var following: Set<String> = []
    var followers: Set<String> = []
    var subscriptions: Set<String> = []
    /// Request-rate windows for reads and writes.
    var readWindow = RateWindow()
    var writeWindow = RateWindow()
    /// The one window of a profile with `requestsPerWindow` (reads and writes together).
    var requestWindow = RateWindow()
    var verifyWindow = RateWindow()
    /// Creation times of posts, comments and submolts (for cooldowns and daily caps).
    var postTimes: [Date] = []
    var commentTimes: [Date] = []
    var submoltTimes: [Date] = []
    /// Outcomes of this agent's challenges, oldest first (true = verified).
    var challengeOutcomes: [Bool] = []
    /// Codes of this agent's challenges still waiting for an answer.
    var pendingChallenges: [String] = []
    var offenses = 0
    var suspendedUntil: Date?
    /// Length of the current suspension, in seconds (the minimal-mock's wording quotes it).
    var suspensionSeconds = 0
    /// Why the current suspension was given (its wording).
    var suspensionCause = SuspensionCause.verification
    /// Fingerprints of everything this agent submitted (posts and comments, challenged or not):
    /// the server fingerprints on submission (moltbook-api.md §6.1).
    var contentPrints: Set<String> = []
    /// Creation times of direct messages and DM requests (the `dm` limits).
    var dmTimes: [Date] = []
    /// One of the simulated agents (`SandboxConfig.simulation`).
    var isSimulated = false
}

extension SandboxAgent {
    /// The request window of that kind.
    subscript(window: RequestWindow) -> RateWindow {
        get {
            switch window {
            case .read: readWindow
            case .write: writeWindow
            case .shared: requestWindow
            }
        }
        set {
            switch window {
            case .read: readWindow = newValue
            case .write: writeWindow = newValue
            case .shared: requestWindow = newValue
            }
        }
    }
}

/// Which request window a request counts in: reads and writes apart, or one for both.
enum RequestWindow: Sendable {
    case read, write, shared
}

/// A fixed window counter: `count` requests since `start`.
struct RateWindow: Sendable {
    var start: Date?
    var count = 0
}

/// Publication state of a post, comment or submolt.
enum ContentStatus: String, Sendable {
    /// No challenge was issued; visible.
    case published
    case pending
    case verified
    case failed

    var isVisible: Bool { self == .published || self == .verified }
}

struct SandboxPost: Sendable {
    var id: String
    var seq: Int
    var authorID: String
    var submolt: String
    var title: String
    var content: String?
    var url: String?
    var type: String
    var createdAt: Date
    /// `createdAt` as rendered (`SandboxTime.iso`), formatted once: every list renders it.
    var createdAtText: String
    var upvotes = 0
    var downvotes = 0
    var status: ContentStatus
    var deleted = false
}

struct SandboxComment: Sendable {
    var id: String
    var seq: Int
    var postID: String
    var parentID: String?
    var authorID: String
    var content: String
    var createdAt: Date
    var upvotes = 0
    var downvotes = 0
    var status: ContentStatus
}

struct SandboxSubmolt: Sendable {
    var id: String
    var seq: Int
    var name: String
    var displayName: String
    var description: String
    var allowCrypto: Bool
    var createdAt: Date
    var lastActivityAt: Date
    var ownerID: String?
    var subscribers: Set<String> = []
    var status: ContentStatus
}

/// The kind of content a challenge guards.
enum ChallengeTarget: String, Sendable {
    case post, comment, submolt
    /// Any other write (`challenge_every_write`): nothing of it waits for the answer, but a failure counts.
    case write
}

struct SandboxChallenge: Sendable {
    enum State: Sendable { case pending, verified, failed, expired }
    var code: String
    var agentID: String
    var target: ChallengeTarget
    var contentID: String
    var text: String
    var answer: Decimal
    var expiresAt: Date
    var state: State = .pending
    /// How the answer must be written, as the server was configured when it issued the challenge.
    var form: ChallengeAnswerForm = .twoDecimals
    /// `keep_unverified: false`: the content was not stored; the agent and text a right answer clears.
    var held: String?
}

/// A post as last rendered for a list, with the mutable fields it was rendered from.
struct ListedPost: Sendable {
    static let cap = 20_000

    struct Key: Sendable, Equatable {
        var upvotes: Int
        var downvotes: Int
        var comments: Int
        var status: ContentStatus
    }

    var key: Key
    var json: JSON
}

/// Why an agent was suspended: the wording of its refusals differs.
enum SuspensionCause: Sendable {
    case verification
    case duplicateContent
}
