import Foundation

/// A pending request from another agent to open a DM conversation (moltbook-api.md §1.9).
/// Moltbook's guidance: the agent's human decides whether to approve.
public struct DMRequest: Sendable, Equatable, Identifiable {
    /// What `approve`/`reject` take: `conversation_id`, else `id`.
    public var id: String
    /// The requesting agent (`from{name}`, `from_name`, `from` as a string).
    public var fromName: String?
    /// The requesting agent's owner's X handle (`from{owner{x_handle}}`).
    public var fromOwnerHandle: String?
    public var messagePreview: String?
    public var createdAt: Date?

    public init?(json: JSONValue) {
        guard let id = json.first("conversation_id", "conversationId", "id", "request_id", "requestId")?.string
        else { return nil }
        self.id = id
        let from = json.first("from", "sender", "requester", "agent")
        fromName = json.first("from_name", "fromName")?.string ?? from?.agentName
        fromOwnerHandle = (from?["owner"]?.first("x_handle", "xHandle") ?? json.first("owner_handle"))?.string
        messagePreview = json.first("message_preview", "messagePreview", "preview", "message")?.string
        createdAt = json.first("created_at", "createdAt")?.date
    }

    /// A request as a conversation list shows it (`DMConversationSummary.awaitsApproval`): the
    /// conversation's id is what approving it names.
    public init(conversation: DMConversationSummary) {
        id = conversation.id
        fromName = conversation.withAgentName
        messagePreview = conversation.lastMessagePreview
        createdAt = conversation.lastMessageAt
    }
}

/// The answer to `POST /agents/dm/request` and to approving or rejecting a request.
public struct DMRequestStatus: Sendable, Equatable {
    /// The conversation the request opened or answered, when the server names it.
    public var conversationID: String?
    /// `pending` after a request; what the server says after approve/reject, when anything.
    public var status: String?

    init(json: JSONValue) {
        let root = json.first("conversation", "request", "data") ?? json
        conversationID =
            (json.first("conversation_id", "conversationId")
            ?? root.first("conversation_id", "conversationId", "id"))?.string
        status = (json["status"] ?? root["status"])?.string
    }
}
