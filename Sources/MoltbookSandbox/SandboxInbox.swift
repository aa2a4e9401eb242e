import Foundation

/// What a notification is about (`GET /notifications` `type`).
enum NotificationKind: String, Sendable {
    /// Someone commented on one of the agent's posts.
    case postComment = "post_comment"
    /// Someone replied to one of the agent's comments.
    case commentReply = "comment_reply"
    /// A comment or post names the agent as `@name`.
    case mention
    /// Another agent asks to open a DM conversation.
    case dmRequest = "dm_request"
    /// Someone upvoted one of the agent's posts.
    case postUpvote = "post_upvote"
}

/// One notification for one agent.
struct SandboxNotification: Sendable {
    var id: String
    /// The agent it is for.
    var agentID: String
    var kind: NotificationKind
    var postID: String?
    var commentID: String?
    var conversationID: String?
    /// The agent whose act caused it.
    var actorID: String
    /// A sentence saying what happened, with a preview of the text.
    var content: String
    var createdAt: Date
    /// When it was marked read (nil: unread).
    var readAt: Date?
}

/// Where a DM conversation stands.
enum ConversationStatus: String, Sendable {
    /// Requested; waiting for the receiving agent (or its human) to approve.
    case pending
    case approved
    case rejected
    /// Rejected with `{"block": true}`: the requester may not ask again.
    case blocked
}

/// One direct message.
struct SandboxMessage: Sendable {
    var id: String
    var senderID: String
    var content: String
    var createdAt: Date
    /// When the other side opened the conversation after it arrived (nil: unread).
    var readAt: Date?
    var needsHumanInput = false
}

/// A DM conversation between two agents: one per pair, opened by a request.
struct SandboxConversation: Sendable {
    var id: String
    var seq: Int
    /// The agent that sent the request.
    var initiatorID: String
    /// The agent that must approve it.
    var recipientID: String
    var status: ConversationStatus
    var createdAt: Date
    var decidedAt: Date?
    /// `agent` (the recipient through the API) or `human` (the admin route, or the simulated owner).
    var decidedBy: String?
    /// The request's message first, then every message sent after approval, oldest first.
    var messages: [SandboxMessage]

    func other(than agentID: String) -> String {
        agentID == initiatorID ? recipientID : initiatorID
    }

    func involves(_ agentID: String) -> Bool {
        agentID == initiatorID || agentID == recipientID
    }

    /// Messages from the other side that `agentID` has not opened yet.
    func unreadCount(for agentID: String) -> Int {
        messages.reduce(0) { $0 + ($1.senderID != agentID && $1.readAt == nil ? 1 : 0) }
    }

    var lastMessageAt: Date { messages.last?.createdAt ?? createdAt }

    /// The key of the conversation between two agents, whoever asked.
    static func pairKey(_ a: String, _ b: String) -> String {
        a < b ? a + "|" + b : b + "|" + a
    }
}

/// The sandbox's notifications and DM conversations, with the lookups the routes need.
struct SandboxInbox: Sendable {
    /// Every notification, oldest first.
    var notifications: [SandboxNotification] = []
    /// Positions in `notifications` by recipient, oldest first.
    var byAgent: [String: [Int]] = [:]
    /// Positions of each recipient's unread notifications, oldest first.
    var unreadByAgent: [String: [Int]] = [:]
    var conversations: [String: SandboxConversation] = [:]
    /// The live (pending, approved or blocked) conversation of each pair of agents.
    var conversationByPair: [String: String] = [:]
    /// Conversation ids by participant, oldest first.
    var conversationsByAgent: [String: [String]] = [:]
    /// The last conversation sequence number given (`SandboxState.takeInboxSeq`).
    var nextSeq = 0

    mutating func add(_ notification: SandboxNotification) {
        let position = notifications.count
        notifications.append(notification)
        byAgent[notification.agentID, default: []].append(position)
        unreadByAgent[notification.agentID, default: []].append(position)
    }

    /// Marks read, at `now`, the agent's unread notifications that `include` selects; returns how many.
    mutating func markRead(of agentID: String, at now: Date, where include: (SandboxNotification) -> Bool) -> Int {
        guard let unread = unreadByAgent[agentID], !unread.isEmpty else { return 0 }
        var kept: [Int] = []
        var marked = 0
        for position in unread {
            if include(notifications[position]) {
                notifications[position].readAt = now
                marked += 1
            } else {
                kept.append(position)
            }
        }
        unreadByAgent[agentID] = kept
        return marked
    }

    func unread(of agentID: String) -> [SandboxNotification] {
        (unreadByAgent[agentID] ?? []).map { notifications[$0] }
    }

    mutating func add(_ conversation: SandboxConversation) {
        conversations[conversation.id] = conversation
        conversationByPair[SandboxConversation.pairKey(conversation.initiatorID, conversation.recipientID)] =
            conversation.id
        conversationsByAgent[conversation.initiatorID, default: []].append(conversation.id)
        conversationsByAgent[conversation.recipientID, default: []].append(conversation.id)
    }

    /// The agent's conversations in `status`, oldest first.
    func conversations(of agentID: String, status: ConversationStatus) -> [SandboxConversation] {
        (conversationsByAgent[agentID] ?? []).compactMap { conversations[$0] }.filter { $0.status == status }
    }
}
