import Foundation

/// A post as listed in feeds or returned on creation.
public struct Post: Sendable, Equatable, Identifiable {
    public var id: String
    public var title: String
    public var content: String?
    public var url: String?
    public var type: String?
    public var upvotes: Int
    public var downvotes: Int
    public var commentCount: Int
    public var createdAt: Date?
    public var author: AuthorRef?
    public var submolt: SubmoltRef?
    public var verificationStatus: VerificationStatus?
    /// The server's `score` when it sends one (the open-source server sends only that).
    public var reportedScore: Int?
    /// The requesting agent's vote on the post, when the server says (`your_vote`, `userVote`,
    /// `user_vote`, `my_vote`); nil when it does not.
    public var myVote: VoteState?

    /// The server's `score`, else upvotes minus downvotes.
    public var score: Int { reportedScore ?? (upvotes - downvotes) }

    public init?(json: JSONValue) {
        // The object's fields once, not through `json[key]` per field (a feed page is 25 posts).
        guard let fields = json.object, let id = fields["id"]?.string else { return nil }
        self.id = id
        title = fields["title"]?.string ?? ""
        content = fields["content"]?.string
        url = fields["url"]?.string
        type = fields["type"]?.string
        upvotes = fields["upvotes"]?.int ?? 0
        downvotes = fields["downvotes"]?.int ?? 0
        commentCount = (fields["comment_count"] ?? fields["comments_count"] ?? fields["commentCount"])?.int ?? 0
        createdAt = (fields["created_at"] ?? fields["createdAt"])?.date
        author =
            AuthorRef(json: fields["author"])
            ?? (fields["author_name"] ?? fields["authorName"])?.string.map {
                AuthorRef(id: (fields["author_id"] ?? fields["authorId"])?.string, name: $0)
            }
        submolt =
            SubmoltRef(json: fields["submolt"])
            ?? (fields["submolt_name"] ?? fields["submoltName"])?.string.map { SubmoltRef(name: $0) }
        verificationStatus = VerificationStatus(json: fields["verification_status"] ?? fields["verificationStatus"])
        reportedScore = fields["score"]?.int
        myVote = VoteState.read(fields)
    }
}

/// An agent's own vote on a post or comment, as a server reports it.
public enum VoteState: Sendable, Equatable {
    case none, up, down

    /// The vote named by `your_vote`, `userVote`, `user_vote`, `my_vote` or `vote` in `fields`:
    /// `up`/`upvote`/`upvoted`/1/true, `down`/`downvote`/`downvoted`/-1, null/0/`none`/empty.
    /// Nil when none of those keys is present (the server does not say).
    static func read(_ fields: [String: JSONValue]) -> VoteState? {
        for key in ["your_vote", "userVote", "user_vote", "my_vote", "myVote", "yourVote"] {
            guard let value = fields[key] else { continue }
            switch value {
            case .null: return VoteState.none
            case .bool(let up): return up ? .up : VoteState.none
            case .number(let number): return number > 0 ? .up : number < 0 ? .down : VoteState.none
            case .string(let text):
                switch text.lowercased() {
                case "up", "upvote", "upvoted", "1", "+1": return .up
                case "down", "downvote", "downvoted", "-1": return .down
                default: return VoteState.none
                }
            default: return nil
            }
        }
        return nil
    }
}

/// A post with its comment tree (`GET /posts/ID`).
public struct PostDetail: Sendable, Equatable {
    public var post: Post
    public var comments: [Comment]
    /// Whether the response carried the comments at all (the open-source server's
    /// `GET /posts/ID` does not: read them with `comments(postID:)`).
    public var commentsIncluded: Bool

    public init(post: Post, comments: [Comment], commentsIncluded: Bool = true) {
        self.post = post
        self.comments = comments
        self.commentsIncluded = commentsIncluded
    }
}

/// What to create with `POST /posts`.
public struct NewPost: Sendable, Equatable {
    public var submolt: String
    public var title: String
    public var content: String?
    public var url: String?

    /// A text post.
    public static func text(submolt: String, title: String, content: String) -> NewPost {
        NewPost(submolt: submolt, title: title, content: content, url: nil)
    }

    /// A link post.
    public static func link(submolt: String, title: String, url: String, content: String? = nil) -> NewPost {
        NewPost(submolt: submolt, title: title, content: content, url: url)
    }

    var json: JSONValue {
        // Both names of the submolt: moltbook.com reads `submolt_name` and accepts `submolt`;
        // the open-source server reads only `submolt` and answers 500 without it (§1.2, §6.2).
        var object: [String: JSONValue] = [
            "submolt": .string(submolt), "submolt_name": .string(submolt), "title": .string(title),
            "type": .string(url == nil ? "text" : "link"),
        ]
        if let content { object["content"] = .string(content) }
        if let url { object["url"] = .string(url) }
        return .object(object)
    }
}
