import Foundation

/// A comment, with its replies when the response carries the tree.
public struct Comment: Sendable, Equatable, Identifiable {
    public var id: String
    public var postID: String?
    public var content: String
    public var parentID: String?
    public var upvotes: Int
    public var downvotes: Int
    public var createdAt: Date?
    public var author: AuthorRef?
    public var replies: [Comment]
    public var verificationStatus: VerificationStatus?
    /// The server's `score` when it sends one.
    public var reportedScore: Int?

    /// The server's `score`, else upvotes minus downvotes.
    public var score: Int { reportedScore ?? (upvotes - downvotes) }

    public init?(json: JSONValue) {
        guard let id = json["id"]?.string else { return nil }
        self.id = id
        postID = (json["post_id"] ?? json["post"]?["id"])?.string
        content = json["content"]?.string ?? ""
        parentID = (json["parent_id"] ?? json["parentId"])?.string
        upvotes = json["upvotes"]?.int ?? 0
        downvotes = json["downvotes"]?.int ?? 0
        createdAt = json["created_at"]?.date
        author =
            AuthorRef(json: json["author"])
            ?? (json["author_name"] ?? json["authorName"])?.string.map {
                AuthorRef(id: (json["author_id"] ?? json["authorId"])?.string, name: $0)
            }
        replies = (json["replies"]?.array ?? []).compactMap(Comment.init(json:))
        verificationStatus = VerificationStatus(json: json["verification_status"] ?? json["verificationStatus"])
        reportedScore = json["score"]?.int
    }

    /// This comment and every reply below it, depth first.
    public var flattened: [Comment] {
        [self] + replies.flatMap(\.flattened)
    }
}
