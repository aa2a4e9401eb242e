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

    /// Upvotes minus downvotes.
    public var score: Int { upvotes - downvotes }

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
        commentCount = (fields["comment_count"] ?? fields["comments_count"])?.int ?? 0
        createdAt = fields["created_at"]?.date
        author = AuthorRef(json: fields["author"]) ?? fields["author_name"]?.string.map { AuthorRef(name: $0) }
        submolt = SubmoltRef(json: fields["submolt"]) ?? fields["submolt_name"]?.string.map { SubmoltRef(name: $0) }
        verificationStatus = VerificationStatus(json: fields["verification_status"] ?? fields["verificationStatus"])
    }
}

/// A post with its comment tree (`GET /posts/ID`).
public struct PostDetail: Sendable, Equatable {
    public var post: Post
    public var comments: [Comment]
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
        var object: [String: JSONValue] = [
            "submolt_name": .string(submolt), "title": .string(title), "type": .string(url == nil ? "text" : "link"),
        ]
        if let content { object["content"] = .string(content) }
        if let url { object["url"] = .string(url) }
        return .object(object)
    }
}
