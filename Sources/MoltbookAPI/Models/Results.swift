import Foundation

/// One page of a cursor-paginated list.
public struct Page<Item: Sendable>: Sendable {
    public var items: [Item]
    public var hasMore: Bool
    public var nextCursor: String?
    /// The server said in so many words that nothing follows (`has_more: false`): the listing
    /// is complete. A page without the field is not evidence of the end (issue 33: a verdict of
    /// absence needs a listing that covers the question).
    public var ended: Bool

    public init(items: [Item], hasMore: Bool, nextCursor: String?, ended: Bool = false) {
        self.items = items
        self.hasMore = hasMore
        self.nextCursor = nextCursor
        self.ended = ended
    }
}

extension Page: Equatable where Item: Equatable {}

/// What a vote did (the response's `action`). Votes toggle: the same vote twice removes it.
///
/// Not `VoteAction`: that name is the recipe's vote step (`Recipes.VoteAction`), and one name means one type.
public enum VoteOutcome: Sendable, Equatable {
    case upvoted
    case downvoted
    /// The vote was taken back (the same vote was sent again).
    case removed
    /// The opposite vote replaced an earlier one.
    case changed
    /// The response named no action or one not known here.
    case unknown(String?)

    init(_ text: String?) {
        switch text?.lowercased() {
        case "upvoted": self = .upvoted
        case "downvoted": self = .downvoted
        case "removed", "unvoted": self = .removed
        case "changed", "switched": self = .changed
        default: self = .unknown(text)
        }
    }
}

/// The response to an up- or downvote.
public struct VoteResult: Sendable, Equatable {
    public var action: VoteOutcome
    public var message: String?
    public var authorName: String?
    public var alreadyFollowing: Bool?
}

/// The response to subscribe / unsubscribe / follow / unfollow.
public struct MembershipResult: Sendable, Equatable {
    /// `subscribed`, `already_subscribed`, `unsubscribed`, `not_subscribed`, `followed`, … or nil
    /// when production omits it.
    public var action: String?
    public var message: String?
}

/// One search hit: a post or a comment.
public struct SearchResult: Sendable, Equatable {
    public var id: String
    public var type: String
    public var title: String?
    public var content: String?
    public var similarity: Double?
    public var postID: String?
    public var author: AuthorRef?
    public var submolt: SubmoltRef?
    public var createdAt: Date?
    /// The hit read as a post (every field a feed item has: score, submolt, author in any of
    /// their shapes); nil for comments.
    public var post: Post?

    init?(json: JSONValue, defaultType: String = "post") {
        guard let id = json["id"]?.string else { return nil }
        self.id = id
        type = json["type"]?.string ?? defaultType
        title = json["title"]?.string
        content = json["content"]?.string
        similarity = json["similarity"]?.double
        postID = (json["post_id"] ?? json["postId"] ?? json["post"]?["id"])?.string
        if type == "post" {
            // A post hit's own id is the post's; `post_id`, when present, says the same.
            var fields = json.object ?? [:]
            fields["id"] = .string(postID ?? id)
            post = Post(json: .object(fields))
        }
        author =
            post?.author ?? AuthorRef(json: json["author"])
            ?? (json["author_name"] ?? json["authorName"])?.string.map { AuthorRef(name: $0) }
        submolt = post?.submolt ?? SubmoltRef(json: json["submolt"])
        createdAt = post?.createdAt ?? (json["created_at"] ?? json["createdAt"])?.date
    }
}

/// What to search.
public enum SearchType: String, Sendable {
    case posts, comments, all
}

/// Sort orders for post lists.
public enum PostSort: String, Sendable, CaseIterable {
    case hot, new, top, rising
}

/// Sort orders for comments (1.12 names).
public enum CommentSort: String, Sendable, CaseIterable {
    case best, new, old, top, controversial
}

/// Content created by a write, with the challenge when Moltbook asks for verification first.
public struct Created<Item: Sendable>: Sendable {
    /// The created item; nil when a server sent only a challenge (moltbook-api.md §6.3).
    public var item: Item?
    /// The new object's id, wherever the answer put it (the item's `id`, `post_id`, `data.id` …);
    /// nil when the server named none (`{"success": true}` alone): applied, its id to be found.
    public var id: String?
    /// Present when the content waits for `POST /verify`.
    public var challenge: VerificationChallenge?
    public var message: String?
}

/// The answer to `POST /verify`. A wrong answer is data, not an error: the caller decides
/// what to do (pause, never retry the same code).
public enum VerificationOutcome: Sendable, Equatable {
    case verified(contentType: String?, contentID: String?, message: String?)
    case incorrect(contentType: String?, contentID: String?, hint: String?)
}
