import Foundation

/// Lookup tables over the sandbox's posts and comments, kept up to date on every insert.
///
/// Without them every list, feed and search request scanned (and search re-tokenised) every post,
/// and every rendered post counted its comments by scanning every comment: a month of `plan`
/// with 100 recipes grew quadratically. Answers are unchanged: the indexes only narrow which
/// items are looked at; visibility, deletion and ordering are still decided from the items.
struct SandboxIndex: Sendable {
    /// Where an item sits in time: lists are ordered by `(createdAt, seq)`, oldest first.
    struct Ref: Sendable {
        var createdAt: Date
        var seq: Int
        var id: String

        func isBefore(_ other: Ref) -> Bool { (createdAt, seq) < (other.createdAt, other.seq) }
    }

    /// Every post, oldest first.
    private(set) var posts: [Ref] = []
    private(set) var postsBySubmolt: [String: [Ref]] = [:]
    private(set) var postsByAuthor: [String: [Ref]] = [:]
    private(set) var commentsByPost: [String: [String]] = [:]
    private(set) var commentsByAuthor: [String: [String]] = [:]
    /// Posts and comments by search keyword (title and content, tokenised once), oldest first.
    private(set) var postsByKeyword: [String: [Ref]] = [:]
    private(set) var commentsByKeyword: [String: [Ref]] = [:]
    /// `author | title | content` of every post and `author | post | parent | content` of every
    /// comment ever created, for the duplicate-content counter.
    /// Each author's score over their comments and non-deleted posts, kept up to date by votes
    /// and deletions.
    private(set) var karma: [String: Int] = [:]
    private var postSignatures: Set<String> = []
    private var commentSignatures: Set<String> = []

    /// Records a new post; true when the same author had already posted the same title and content.
    mutating func insert(_ post: SandboxPost) -> Bool {
        let ref = Ref(createdAt: post.createdAt, seq: post.seq, id: post.id)
        Self.insert(ref, into: &posts)
        Self.insert(ref, into: &postsBySubmolt[post.submolt, default: []])
        Self.insert(ref, into: &postsByAuthor[post.authorID, default: []])
        let words = Set(SandboxState.keywords(post.title + " " + (post.content ?? "")))
        for word in words { Self.insert(ref, into: &postsByKeyword[word, default: []]) }
        let signature = [post.authorID, post.title, post.content.map { "=" + $0 } ?? "nil"].joined(separator: "\u{1F}")
        return !postSignatures.insert(signature).inserted
    }

    /// Records a new comment; true when the same author had already said the same under the same parent.
    mutating func insert(_ comment: SandboxComment) -> Bool {
        commentsByPost[comment.postID, default: []].append(comment.id)
        commentsByAuthor[comment.authorID, default: []].append(comment.id)
        let words = Set(SandboxState.keywords(comment.content))
        let ref = Ref(createdAt: comment.createdAt, seq: comment.seq, id: comment.id)
        for word in words { Self.insert(ref, into: &commentsByKeyword[word, default: []]) }
        let signature = [comment.authorID, comment.postID, comment.parentID.map { "=" + $0 } ?? "nil", comment.content]
            .joined(separator: "\u{1F}")
        return !commentSignatures.insert(signature).inserted
    }

    mutating func addKarma(_ delta: Int, to agentID: String) {
        if delta != 0 { karma[agentID, default: 0] += delta }
    }

    /// Inserts keeping `(createdAt, seq)` order; appending is the common case (time moves forward).
    private static func insert(_ ref: Ref, into list: inout [Ref]) {
        guard let last = list.last, ref.isBefore(last) else {
            list.append(ref)
            return
        }
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle].isBefore(ref) { low = middle + 1 } else { high = middle }
        }
        list.insert(ref, at: low)
    }
}
