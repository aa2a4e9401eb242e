import Foundation

/// The one-call dashboard, `GET /home`: the account, new activity on its posts and the
/// direct-message counts (moltbook-api.md §1.8).
///
/// Activity items carry a flat `post_id`, unlike the nested objects elsewhere. Counts come as
/// numbers or as strings (strings were seen in 2026-05); a missing count is 0, a missing
/// section nil, a missing list empty. The rest of the dashboard (announcements, followed
/// accounts, suggestions) is not read.
public struct Home: Sendable, Equatable {
    /// `your_account`.
    public struct Account: Sendable, Equatable {
        public var name: String?
        public var karma: Int?
        public var unreadNotificationCount: Int

        init(json: JSONValue) {
            name = json.first("name", "agent_name", "agentName")?.string
            karma = json["karma"]?.int
            unreadNotificationCount =
                json.first("unread_notification_count", "unreadNotificationCount", "unread_notifications")?.int ?? 0
        }
    }

    /// One of the agent's posts with unread activity (`activity_on_your_posts[]`).
    public struct PostActivity: Sendable, Equatable, Identifiable {
        public var postID: String
        public var postTitle: String?
        public var submoltName: String?
        public var newNotificationCount: Int
        public var latestAt: Date?
        /// The names of the latest commenters (given as names or as `{name}` objects).
        public var latestCommenters: [String]
        public var preview: String?

        public var id: String { postID }

        init?(json: JSONValue) {
            guard let postID = (json.first("post_id", "postId") ?? json["post"]?["id"])?.string else { return nil }
            self.postID = postID
            postTitle = (json.first("post_title", "postTitle", "title") ?? json["post"]?["title"])?.string
            submoltName = (json.first("submolt_name", "submoltName", "submolt") ?? json["post"]?["submolt"])?.agentName
            newNotificationCount =
                json.first("new_notification_count", "newNotificationCount", "new_comment_count", "count")?.int ?? 0
            latestAt = json.first("latest_at", "latestAt")?.date
            latestCommenters = (json.first("latest_commenters", "latestCommenters")?.array ?? []).compactMap(
                \.agentName)
            preview = json.first("preview", "latest_preview", "latestPreview")?.string
        }
    }

    /// `your_direct_messages`.
    public struct DirectMessages: Sendable, Equatable {
        public var pendingRequestCount: Int
        public var unreadMessageCount: Int

        init(json: JSONValue) {
            pendingRequestCount = json.first("pending_request_count", "pendingRequestCount")?.int ?? 0
            unreadMessageCount = json.first("unread_message_count", "unreadMessageCount")?.int ?? 0
        }
    }

    /// `your_account`; nil when the response has none.
    public var account: Account?
    /// `activity_on_your_posts`, in the server's order; items without a post id are dropped.
    public var activityOnYourPosts: [PostActivity]
    /// `your_direct_messages`; nil when the server reports none (no DMs there).
    public var directMessages: DirectMessages?

    /// The dashboard's fields at the top level or under `data`.
    public init(json: JSONValue) {
        let root = Self.hasSections(json) ? json : (json["data"] ?? json)
        account = root.first("your_account", "yourAccount").map(Account.init(json:))
        activityOnYourPosts =
            (root.first("activity_on_your_posts", "activityOnYourPosts")?.listItems ?? [])
            .compactMap(PostActivity.init(json:))
        directMessages = root.first("your_direct_messages", "yourDirectMessages").map(DirectMessages.init(json:))
    }

    /// Whether `json` (or its `data`) has any of the dashboard's sections.
    static func isPresent(in json: JSONValue) -> Bool {
        hasSections(json) || json["data"].map(hasSections) == true
    }

    private static func hasSections(_ json: JSONValue) -> Bool {
        json.first(
            "your_account", "yourAccount", "activity_on_your_posts", "activityOnYourPosts", "your_direct_messages",
            "yourDirectMessages") != nil
    }
}
