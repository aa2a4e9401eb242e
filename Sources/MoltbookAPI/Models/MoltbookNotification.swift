import Foundation

/// One item of `GET /notifications` (moltbook-api.md §1.8).
///
/// Not `Notification`: that is Foundation's type, and every module that imports both would
/// have to qualify the name.
///
/// Fields are read in camelCase (as seen on moltbook.com, 2026-05) and snake_case alike.
public struct MoltbookNotification: Sendable, Equatable, Identifiable {
    /// What happened.
    public enum Kind: Sendable, Hashable {
        /// A comment on one of the agent's posts.
        case postComment
        /// A reply to one of the agent's comments.
        case commentReply
        /// A post or comment that mentions the agent.
        case mention
        /// Another agent asks to open a DM conversation.
        case dmRequest
        /// An upvote on one of the agent's posts.
        case postUpvote
        /// A type not known here, as the server spelled it.
        case other(String)

        /// Reads `post_comment`, `postComment`, `POST-COMMENT`… alike.
        public init(_ text: String) {
            let folded = text.lowercased().filter { $0 != "_" && $0 != "-" }
            switch folded {
            case "postcomment": self = .postComment
            case "commentreply", "reply": self = .commentReply
            case "mention": self = .mention
            case "dmrequest": self = .dmRequest
            case "postupvote": self = .postUpvote
            default: self = .other(text)
            }
        }

        /// The server's spelling: `post_comment`, `comment_reply`, …
        public var rawValue: String {
            switch self {
            case .postComment: "post_comment"
            case .commentReply: "comment_reply"
            case .mention: "mention"
            case .dmRequest: "dm_request"
            case .postUpvote: "post_upvote"
            case .other(let text): text
            }
        }
    }

    public var id: String
    public var type: Kind
    /// The post the notification is about (`relatedPostId`, `related_post_id`, `post_id`).
    public var postID: String?
    /// The comment it is about (`relatedCommentId`, `related_comment_id`, `comment_id`).
    public var commentID: String?
    /// `isRead`, `is_read` or `read`; false when absent.
    public var isRead: Bool
    public var content: String?
    public var createdAt: Date?
    /// The agent who did it (`actorName`, `actor_name`, `actor{name}`, `from{name}`).
    public var actorName: String?
    /// The title of the post it concerns, when the server says (`post{title}`, `post_title`, `relatedPostTitle`).
    public var postTitle: String?

    /// Nil without an id, or without a type.
    public init?(json: JSONValue) {
        guard let id = json["id"]?.string,
            let type = json.first("type", "kind", "notification_type", "notificationType")?.string
        else { return nil }
        self.id = id
        self.type = Kind(type)
        postID =
            (json.first("relatedPostId", "related_post_id", "post_id", "postId") ?? json["post"]?["id"])?.string
        commentID =
            (json.first("relatedCommentId", "related_comment_id", "comment_id", "commentId")
            ?? json["comment"]?["id"])?.string
        isRead = json.first("isRead", "is_read", "read")?.bool ?? false
        content = json.first("content", "message", "body", "preview")?.string
        createdAt = json.first("createdAt", "created_at")?.date
        actorName =
            json.first("actorName", "actor_name")?.string ?? json.first("actor", "from", "sender")?.agentName
        postTitle =
            (json.first("postTitle", "post_title", "relatedPostTitle", "related_post_title") ?? json["post"]?["title"])?
            .string
    }
}

/// One page of `GET /notifications`.
public struct NotificationPage: Sendable, Equatable {
    public var items: [MoltbookNotification]
    /// The server's `unread_count`; nil when it does not say.
    public var unreadCount: Int?
    public var hasMore: Bool
    public var nextCursor: String?

    public init(items: [MoltbookNotification], unreadCount: Int?, hasMore: Bool, nextCursor: String?) {
        self.items = items
        self.unreadCount = unreadCount
        self.hasMore = hasMore
        self.nextCursor = nextCursor
    }
}

/// The answer to `POST /notifications/read-by-post/ID` and `POST /notifications/read-all`.
public struct NotificationsMarkedRead: Sendable, Equatable {
    /// How many notifications were marked (`marked_read`); nil when the server does not say.
    public var count: Int?
}
