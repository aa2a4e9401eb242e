import Foundation

/// `GET /agents/dm/check`: whether anything waits in the agent's direct messages
/// (moltbook-api.md §1.9).
public struct DMCheck: Sendable, Equatable {
    /// `has_activity`, else whether any request or unread message is counted.
    public var hasActivity: Bool
    /// The server's one-line summary, when any.
    public var summary: String?
    /// Pending requests from other agents: `requests.count`, `pending_requests` as a number,
    /// else how many are listed.
    public var pendingRequestCount: Int
    /// The pending requests listed (`requests.items`, or `requests` as an array).
    public var requests: [DMRequest]
    /// Unread messages in approved conversations (`messages.total_unread`).
    public var totalUnread: Int
    /// How many conversations have unread messages (`messages.conversations_with_unread`).
    public var conversationsWithUnread: Int
    /// Whether the server says new messages wait (`has_new_messages`), also when it gives no
    /// count (then `totalUnread` is 0 and says nothing).
    public var hasNewMessages: Bool

    /// Nil when neither the top level nor `data` has `has_activity`, `requests` or `messages`.
    init?(json: JSONValue) {
        guard let root = [json, json["data"]].compactMap({ $0 }).first(where: Self.hasFields) else { return nil }
        let requestsValue = root.first("requests", "pending_requests", "pendingRequests")
        requests = (requestsValue?.listItems ?? []).compactMap(DMRequest.init(json:))
        // `pending_requests: 1` (a count, not a list) is a shape servers use too (issue 33,
        // observation 8: it was read as none).
        pendingRequestCount =
            requestsValue?.int
            ?? (requestsValue?.first("count", "total")
            ?? root.first("pending_request_count", "pendingRequestCount", "pending_requests_count"))?.int
            ?? requests.count
        let messages = root["messages"]
        totalUnread =
            (messages?.first("total_unread", "totalUnread", "unread_count", "unreadCount")
            ?? root.first("total_unread", "totalUnread", "unread_message_count"))?.int ?? 0
        conversationsWithUnread =
            messages?.first("conversations_with_unread", "conversationsWithUnread")?.int ?? 0
        hasNewMessages =
            root.first("has_new_messages", "hasNewMessages", "has_unread", "hasUnread")?.bool ?? (totalUnread > 0)
        summary = root["summary"]?.string
        hasActivity =
            root.first("has_activity", "hasActivity")?.bool ?? (pendingRequestCount > 0 || hasNewMessages)
    }

    private static func hasFields(_ json: JSONValue) -> Bool {
        json.first(
            "has_activity", "hasActivity", "requests", "messages", "pending_requests", "pendingRequests",
            "has_new_messages", "hasNewMessages") != nil
    }
}
