import Foundation

/// One conversation of `GET /agents/dm/conversations` (moltbook-api.md §1.9).
public struct DMConversationSummary: Sendable, Equatable, Identifiable {
    /// `conversation_id`, else `id`.
    public var id: String
    /// The other agent (`with_agent{name}`, also a plain name).
    public var withAgentName: String?
    public var unreadCount: Int
    public var lastMessageAt: Date?
    /// Whether this agent opened the conversation; nil when the server does not say.
    public var youInitiated: Bool?
    /// `pending`, `approved`, … when the server says (moltbook.com lists approved ones).
    public var status: String?
    /// `approved` / `is_approved` when the server says.
    public var approved: Bool?
    /// The last message's text or preview, when the list gives it.
    public var lastMessagePreview: String?

    /// Whether this is a request to the agent awaiting approval: a conversation the server
    /// lists as not approved (`approved: false`, `status: pending`) that the agent did not start.
    /// Some servers list pending requests only here (issue 33, observation 8).
    public var awaitsApproval: Bool {
        guard youInitiated != true else { return false }
        if let approved { return !approved }
        let said = status?.lowercased() ?? ""
        return said == "pending" || said == "requested"
    }

    public init?(json: JSONValue) {
        guard let id = json.first("conversation_id", "conversationId", "id")?.string else { return nil }
        self.id = id
        withAgentName = json.first("with_agent", "withAgent", "other_agent", "otherAgent", "with")?.agentName
        unreadCount = json.first("unread_count", "unreadCount", "unread")?.int ?? 0
        lastMessageAt = json.first("last_message_at", "lastMessageAt", "updated_at", "updatedAt")?.date
        youInitiated = json.first("you_initiated", "youInitiated", "initiated_by_me", "initiatedByMe")?.bool
        status = json["status"]?.string
        approved = json.first("approved", "is_approved", "isApproved")?.bool
        lastMessagePreview =
            (json.first("last_message", "lastMessage", "message_preview", "messagePreview", "preview"))
            .flatMap { $0.string ?? $0.first("content", "text", "message")?.string }
    }
}

/// `GET /agents/dm/conversations`: the agent's conversations and its total unread count.
public struct DMConversationList: Sendable, Equatable {
    /// `total_unread`, else the sum of the conversations' unread counts.
    public var totalUnread: Int
    public var conversations: [DMConversationSummary]

    /// Nil when no list of conversations is found.
    init?(json: JSONValue) {
        let root = json["conversations"] != nil ? json : (json["data"] ?? json)
        guard let list = root["conversations"]?.listItems ?? Envelope.list(root, keys: []) else { return nil }
        conversations = list.compactMap(DMConversationSummary.init(json:))
        totalUnread =
            (root.first("total_unread", "totalUnread") ?? json.first("total_unread", "totalUnread"))?.int
            ?? conversations.reduce(0) { $0 + $1.unreadCount }
    }
}

/// One conversation with its messages (`GET /agents/dm/conversations/ID`).
public struct DMConversation: Sendable, Equatable, Identifiable {
    public var id: String
    /// The other agent.
    public var withAgentName: String?
    /// In the server's order (oldest first on moltbook.com).
    public var messages: [DMMessage]

    /// Reads `{conversation:{conversation_id, with_agent}, messages:[…]}`, messages inside
    /// `conversation`, or the same under `data`; `requestedID` names a conversation that does
    /// not name itself.
    init?(json: JSONValue, requestedID: String) {
        let root = (json["conversation"] != nil || json["messages"] != nil) ? json : (json["data"] ?? json)
        let conversation = root["conversation"]?.object.map(JSONValue.object) ?? root
        guard let list = (root["messages"] ?? conversation["messages"])?.listItems ?? root.array else { return nil }
        id = conversation.first("conversation_id", "conversationId", "id")?.string ?? requestedID
        withAgentName = conversation.first("with_agent", "withAgent", "other_agent", "otherAgent", "with")?.agentName
        messages = list.compactMap(DMMessage.init(json:))
    }
}
