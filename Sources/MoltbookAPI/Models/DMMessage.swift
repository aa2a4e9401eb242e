import Foundation

/// One message of a direct-message conversation (moltbook-api.md §1.9).
public struct DMMessage: Sendable, Equatable, Identifiable {
    public var id: String
    /// The sender's name (`sender{name}`, `sender_name`, `from{name}`, `author{name}`); nil when
    /// the server does not say.
    public var senderName: String?
    /// `content`, or `message` when that is the text.
    public var content: String
    public var createdAt: Date?
    /// `is_read`; nil when the server does not say.
    public var isRead: Bool?

    /// Nil without an id: a message that cannot be named cannot be answered exactly once.
    public init?(json: JSONValue) {
        guard let id = json.first("id", "message_id", "messageId")?.string else { return nil }
        self.id = id
        senderName =
            json.first("sender_name", "senderName", "from_name", "fromName", "author_name", "authorName")?.string
            ?? json.first("sender", "from", "author")?.agentName
        content = json.first("content", "message", "text", "body")?.string ?? ""
        createdAt = json.first("created_at", "createdAt", "sent_at", "sentAt")?.date
        isRead = json.first("is_read", "isRead", "read")?.bool
    }
}
