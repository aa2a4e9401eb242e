import Foundation

/// Creating and listing comments (trees of `replies`).
extension SandboxState {
    static let commentSorts = ["best", "new", "old", "top", "controversial"]

    /// `POST /posts/ID/comments {content, parent_id?}`.
    mutating func createComment(_ agentID: String, postID: String, _ body: JSON?, now: Date) -> APIResult {
        if let refusal = claimRefusal(agentID) { return refusal }
        if let refusal = commentRefusal(agentID, now: now) { return rateLimited(refusal) }
        let dialect = config.dialect
        if dialect.chargesBeforeValidation { agents[agentID]?.commentTimes.append(now) }
        guard let content = body?["content"]?.stringValue, !content.trimmingCharacters(in: .whitespaces).isEmpty else {
            return .badRequest("Missing required fields", hint: "Provide content")
        }
        guard content.count <= 10_000 else {
            return .badRequest("Content too long", hint: "Comments are at most 10000 characters")
        }
        guard let post = posts[postID], !post.deleted, isVisible(post.status) else {
            return .notFound("Post not found")
        }
        let parentID = body?["parent_id"]?.stringValue
        if let parentID {
            guard let parent = comments[parentID], parent.postID == postID else {
                return .notFound("Parent comment not found", hint: "parent_id must be a comment on this post")
            }
        }
        if let refusal = duplicateRefusal(agentID, text: content, now: now) { return refusal }
        let id = random.uuid()
        let held = heldChallenge(agentID: agentID, target: .comment, contentID: id, text: content, now: now)
        if let held, let challenge = held { return heldAnswer(challenge, what: "comment") }
        let challenge =
            held == nil ? maybeIssueChallenge(agentID: agentID, target: .comment, contentID: id, now: now) : nil
        let comment = SandboxComment(
            id: id, seq: takeSeq(), postID: postID, parentID: parentID, authorID: agentID, content: content,
            createdAt: now, status: challenge == nil ? .published : .pending)
        comments[id] = comment
        if index.insert(comment) { counters.duplicateContents += 1 }
        if !dialect.chargesBeforeValidation { agents[agentID]?.commentTimes.append(now) }
        counters.commentsCreated += 1
        if challenge == nil { published(comment, at: now) }
        if challenge == nil, let answer = config.createAnswer.answer(resource: "comment", id: id) { return answer }
        switch dialect {
        case .moltbookCom:
            break
        case .oss:
            return .ok(["comment": .object(ossCommentItem(comment, replies: nil))], status: 201)
        case .minimalMock:
            if let challenge { return Self.minimalMockChallenge(challenge) }
            return .ok(
                ["message": "Comment created!", "comment": .object(minimalMockCommentItem(comment, replies: nil))],
                status: 201)
        }
        var json = commentJSON(comment, viewer: agentID).objectValue ?? [:]
        json["your_vote"] = nil
        var message: JSON = "Comment added! 🦞"
        if let challenge {
            json["verification"] = Self.verificationJSON(challenge)
            json["verificationStatus"] = "pending"
            message = "Comment created! Complete the verification challenge to publish it. 🦞"
        }
        let postAuthor = agents[post.authorID]
        return .ok(
            [
                "message": message, "comment": .object(json),
                "post_author": ["name": .optional(postAuthor?.name)],
                "already_following_author": .bool(postAuthor?.followers.contains(agentID) ?? false),
            ], status: 201)
    }

    /// `GET /posts/ID/comments?sort=best|new|old&limit&cursor`: top-level comments paginated, replies nested.
    func listComments(_ agentID: String, postID: String, _ query: [String: String]) -> APIResult {
        guard let post = posts[postID], !post.deleted, isVisible(post.status) || post.authorID == agentID else {
            return .notFound("Post not found")
        }
        var sort = query["sort"] ?? (config.dialect == .oss ? "top" : "best")
        if !Self.commentSorts.contains(sort) {
            guard config.dialect != .moltbookCom else {
                return .badRequest("Invalid sort", hint: "sort is best, new or old")
            }
            sort = "best"
        }
        switch config.dialect {
        case .moltbookCom:
            break
        case .oss:
            // The whole tree (up to `limit` top-level comments, default 100, max 500), no pagination.
            let limit = SandboxPagination.limit(query, default: 100, max: 500)
            let tree = dialectCommentTree(postID: postID, parentID: nil, sort: sort, limit: limit)
            return .ok(["comments": .array(tree)])
        case .minimalMock:
            return APIResult(
                status: 200, body: ["comments": .array(dialectCommentTree(postID: postID, parentID: nil, sort: sort))])
        }
        let limit = SandboxPagination.limit(query, default: 35, max: 100)
        let roots = orderedComments(postID: postID, parentID: nil, sort: sort)
        guard let page = SandboxPagination.page(roots, id: \.id, limit: limit, cursor: query["cursor"]) else {
            return SandboxPagination.invalidCursor
        }
        let tree = page.items.map {
            commentJSON($0, viewer: agentID, replies: replies(of: $0.id, viewer: agentID, sort: sort))
        }
        return .ok([
            "comments": .array(tree), "count": .int(tree.count), "has_more": .bool(page.hasMore),
            "next_cursor": .optional(page.nextCursor), "sort": .string(sort), "post_id": .string(postID),
        ])
    }

    /// The whole visible comment tree of a post (embedded in `GET /posts/ID`).
    func commentTree(postID: String, viewer: String, sort: String) -> [JSON] {
        orderedComments(postID: postID, parentID: nil, sort: sort).map {
            commentJSON($0, viewer: viewer, replies: replies(of: $0.id, viewer: viewer, sort: sort))
        }
    }

    private func replies(of commentID: String, viewer: String, sort: String) -> [JSON] {
        guard let postID = comments[commentID]?.postID else { return [] }
        return orderedComments(postID: postID, parentID: commentID, sort: sort).map {
            commentJSON($0, viewer: viewer, replies: replies(of: $0.id, viewer: viewer, sort: sort))
        }
    }

    /// Visible comments of a post with the given parent, in `sort` order.
    func orderedComments(postID: String, parentID: String?, sort: String) -> [SandboxComment] {
        let items = (index.commentsByPost[postID] ?? []).compactMap { comments[$0] }.filter {
            $0.parentID == parentID && isVisible($0.status)
        }
        let oldest: (SandboxComment, SandboxComment) -> Bool = { ($0.createdAt, $0.seq) < ($1.createdAt, $1.seq) }
        func score(_ c: SandboxComment) -> Int { c.upvotes - c.downvotes }
        switch sort {
        case "new": return items.sorted { oldest($1, $0) }
        case "old": return items.sorted(by: oldest)
        case "controversial":
            return items.sorted {
                let (l, r) = (min($0.upvotes, $0.downvotes), min($1.upvotes, $1.downvotes))
                return l != r ? l > r : oldest($0, $1)
            }
        default: return items.sorted { score($0) != score($1) ? score($0) > score($1) : oldest($0, $1) }
        }
    }
}
