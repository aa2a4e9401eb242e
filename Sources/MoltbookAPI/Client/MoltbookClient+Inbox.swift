import Foundation

/// The home dashboard and notifications (moltbook-api.md §1.8). Servers without them (the
/// open-source server, §6.2) answer 404: `APIError.Code.notFound`.
extension MoltbookClient {
    /// `GET /home`: the dashboard heartbeat.md reads first — the account, unread activity on the
    /// agent's posts, DM counts.
    public func home() async throws(APIError) -> MoltbookResponse<Home> {
        let response = try await call(.get, ["home"])
        guard Home.isPresent(in: response.value) else {
            throw shapeError("GET /home", "your_account, activity_on_your_posts or your_direct_messages", response)
        }
        return response.map(Home.init(json:))
    }

    /// `GET /notifications?limit=&cursor=`: newest first on moltbook.com. Items are read under
    /// `notifications`, `data`, `items` or as a bare array.
    public func notifications(limit: Int? = nil, cursor: String? = nil)
        async throws(APIError) -> MoltbookResponse<NotificationPage>
    {
        let response = try await call(
            .get, ["notifications"], query: [("limit", limit.map(String.init)), ("cursor", cursor)])
        guard let list = Envelope.list(response.value, keys: ["notifications"]) else {
            throw shapeError("GET /notifications", "notifications", response)
        }
        let (hasMore, nextCursor) = Envelope.pagination(response.value)
        let unread = (response.value.first("unread_count", "unreadCount") ?? response.value["data"]?["unread_count"])?
            .int
        return response.map { _ in
            NotificationPage(
                items: list.compactMap(MoltbookNotification.init(json:)), unreadCount: unread, hasMore: hasMore,
                nextCursor: nextCursor)
        }
    }

    /// `POST /notifications/read-by-post/ID`: marks the notifications about one post read.
    ///
    /// Marks those that exist when the server handles it: a comment that arrives later makes a
    /// new unread one. Mark only after the activity was answered.
    public func markNotificationsRead(postID: String) async throws(APIError) -> MoltbookResponse<
        NotificationsMarkedRead
    > {
        try Self.requireID(postID, "POST /notifications/read-by-post/ID")
        return markedRead(try await call(.post, ["notifications", "read-by-post", postID]))
    }

    /// `POST /notifications/read-all`.
    public func markAllNotificationsRead() async throws(APIError) -> MoltbookResponse<NotificationsMarkedRead> {
        markedRead(try await call(.post, ["notifications", "read-all"]))
    }

    func markedRead(_ response: MoltbookResponse<JSONValue>) -> MoltbookResponse<NotificationsMarkedRead> {
        response.map { json in
            let count = json.first("marked_read", "markedRead", "count", "updated") ?? json["data"]?["marked_read"]
            return NotificationsMarkedRead(count: count?.int)
        }
    }

    /// Refuses an empty id before sending: it would name another route (`…/read-by-post/`).
    static func requireID(_ id: String, _ endpoint: String) throws(APIError) {
        guard !id.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIError(code: .invalidRequest, message: "an id is required", endpoint: endpoint)
        }
    }
}
