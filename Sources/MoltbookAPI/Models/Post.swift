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
        guard let id = json["id"]?.string else { return nil }
        self.id = id
        title = json["title"]?.string ?? ""
        content = json["content"]?.string
        url = json["url"]?.string
        type = json["type"]?.string
        upvotes = json["upvotes"]?.int ?? 0
        downvotes = json["downvotes"]?.int ?? 0
        commentCount = (json["comment_count"] ?? json["comments_count"])?.int ?? 0
        createdAt = json["created_at"]?.date
        author = AuthorRef(json: json["author"]) ?? json["author_name"]?.string.map { AuthorRef(name: $0) }
        submolt = SubmoltRef(json: json["submolt"]) ?? json["submolt_name"]?.string.map { SubmoltRef(name: $0) }
        verificationStatus = VerificationStatus(json: json["verification_status"] ?? json["verificationStatus"])
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
