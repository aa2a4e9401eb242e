import Foundation

/// What the OSS server and the minimal mock answer differently: error bodies, list and detail
/// shapes, the mock's challenges, the OSS search and the OSS per-endpoint rate-limit headers.
///
/// The handlers branch on `config.dialect` and call these; moltbook.com's renderings stay in
/// `SandboxState+Render.swift`.
extension SandboxState {
    // MARK: Errors

    /// A handler's `{"success":false,"error":…,"hint":…}` in the dialect's shape: the OSS server
    /// adds a `code`, the minimal mock answers `{"detail":"…"}`. 429s (`rateLimited` shapes them),
    /// bodies marked `shaped` and every other body are left alone.
    static func shapeError(_ result: APIResult, for dialect: SandboxDialect) -> APIResult {
        guard result.status >= 400, result.status != 429, !result.shaped, case .object(var body) = result.body,
            body["success"] == false, let error = body["error"]
        else { return result }
        var shaped = result
        switch dialect {
        case .moltbookCom:
            return result
        case .oss:
            if body["code"] == nil { body["code"] = .string(ossCode(result.status)) }
            shaped.body = .object(body)
        case .minimalMock:
            shaped.body = ["detail": error]
        }
        shaped.shaped = true
        return shaped
    }

    /// The OSS server's error `code` for a status.
    static func ossCode(_ status: Int) -> String {
        switch status {
        case 400: "VALIDATION_ERROR"
        case 401: "UNAUTHORIZED"
        case 403: "FORBIDDEN"
        case 404: "NOT_FOUND"
        case 409: "CONFLICT"
        case 410: "GONE"
        case 413: "PAYLOAD_TOO_LARGE"
        case 429: "RATE_LIMITED"
        case 500...: "INTERNAL_ERROR"
        default: "BAD_REQUEST"
        }
    }

    /// The OSS server's answer to `POST /posts` without `submolt`: Express's handler for a TypeError.
    static let ossUndefinedSubmolt = APIResult(
        status: 500,
        body: ["success": false, "error": "Cannot read properties of undefined (reading 'toLowerCase')"],
        shaped: true)

    // MARK: Posts and comments

    /// A post as the OSS server lists it: flat `author_name`, `submolt` as a string, `score` only.
    func ossPostItem(_ post: SandboxPost) -> [String: JSON] {
        [
            "id": .string(post.id), "title": .string(post.title), "content": .optional(post.content),
            "url": .optional(post.url), "author_name": .optional(agents[post.authorID]?.name),
            "submolt": .string(post.submolt), "score": .int(post.upvotes - post.downvotes),
            "comment_count": .int(visibleCommentCount(of: post.id)), "created_at": .string(post.createdAtText),
        ]
    }

    /// A post as the minimal mock lists it: `author{name}`, `submolt{name}`, `score`, no timestamp.
    func minimalMockPostItem(_ post: SandboxPost) -> [String: JSON] {
        [
            "id": .string(post.id), "title": .string(post.title), "content": .optional(post.content),
            "author": ["name": .optional(agents[post.authorID]?.name)], "submolt": ["name": .string(post.submolt)],
            "score": .int(post.upvotes - post.downvotes),
        ]
    }

    func ossCommentItem(_ comment: SandboxComment, replies: [JSON]?) -> [String: JSON] {
        var fields: [String: JSON] = [
            "id": .string(comment.id), "content": .string(comment.content), "parent_id": .optional(comment.parentID),
            "author_name": .optional(agents[comment.authorID]?.name),
            "score": .int(comment.upvotes - comment.downvotes),
            "created_at": .string(SandboxTime.iso(comment.createdAt)),
        ]
        if let replies { fields["replies"] = .array(replies) }
        return fields
    }

    func minimalMockCommentItem(_ comment: SandboxComment, replies: [JSON]?) -> [String: JSON] {
        var fields: [String: JSON] = [
            "id": .string(comment.id), "content": .string(comment.content), "parent_id": .optional(comment.parentID),
            "author": ["name": .optional(agents[comment.authorID]?.name)],
            "score": .int(comment.upvotes - comment.downvotes),
        ]
        if let replies { fields["replies"] = .array(replies) }
        return fields
    }

    /// The visible comments under `parentID` (nil: the top level, at most `limit`), each with its
    /// `replies`, in the dialect's item shape.
    func dialectCommentTree(postID: String, parentID: String?, sort: String, limit: Int = .max) -> [JSON] {
        orderedComments(postID: postID, parentID: parentID, sort: sort).prefix(limit).map { comment in
            let replies = dialectCommentTree(postID: postID, parentID: comment.id, sort: sort)
            return .object(
                config.dialect == .oss
                    ? ossCommentItem(comment, replies: replies) : minimalMockCommentItem(comment, replies: replies))
        }
    }

    /// A page of posts: the OSS `{success, data, pagination{count, limit, offset, hasMore}}` (where,
    /// as there, `hasMore` means "the page is full"), or the minimal mock's bare `{posts}`.
    func dialectPostList(_ items: [SandboxPost], limit: Int, offset: Int) -> APIResult {
        guard config.dialect == .oss else {
            return APIResult(status: 200, body: ["posts": .array(items.map { .object(minimalMockPostItem($0)) })])
        }
        guard !config.ignorePaging else { return .ok(["data": .array(items.map { .object(ossPostItem($0)) })]) }
        return .ok([
            "data": .array(items.map { .object(ossPostItem($0)) }),
            "pagination": [
                "count": .int(items.count), "limit": .int(limit), "offset": .int(offset),
                "hasMore": .bool(items.count == limit),
            ],
        ])
    }

    /// The viewer's vote as the OSS server reports it: `"up"`, `"down"` or null.
    func ossUserVote(_ viewer: String, on targetID: String) -> JSON {
        switch votes[Self.voteKey(viewer, targetID)] {
        case 1: "up"
        case -1: "down"
        default: .null
        }
    }

    // MARK: Agents

    /// `GET /agents/me` on the OSS server: camelCase. Every agent counts as claimed there.
    func ossAgentJSON(_ agent: SandboxAgent) -> [String: JSON] {
        [
            "id": .string(agent.id), "name": .string(agent.name), "displayName": .string(agent.name),
            "description": .string(agent.description), "karma": .int(karma(of: agent.id)),
            "followerCount": .int(agent.followers.count), "followingCount": .int(agent.following.count),
            "isClaimed": true, "createdAt": .string(SandboxTime.iso(agent.createdAt)),
            "lastActive": .string(SandboxTime.iso(agent.lastActive)),
        ]
    }

    // MARK: Challenges

    /// The minimal mock's answer to a challenged create: HTTP 200, `success: false`, no content object.
    static func minimalMockChallenge(_ challenge: SandboxChallenge) -> APIResult {
        let what: String
        switch challenge.target {
        case .post: what = "Post"
        case .comment: what = "Comment"
        case .submolt: what = "Submolt"
        case .write: what = "Action"
        }
        return APIResult(
            status: 200,
            body: [
                "success": false, "verification_required": true,
                "message": .string("\(what) created! Complete verification to publish."),
                "verification": [
                    "code": .string(challenge.code), "challenge": .string(challenge.text),
                    "instructions": .string(challenge.form.instructions(route: nil)),
                ],
            ], shaped: true)
    }

    // MARK: Search

    /// The OSS server's keyword search: `q` as a case-insensitive substring of post titles and
    /// contents, agent names and descriptions, submolt names, display names and descriptions.
    func ossSearch(_ query: [String: String]) -> APIResult {
        let q = (query["q"] ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        let limit = SandboxPagination.limit(query, default: 25, max: 100)
        guard q.count >= 2 else { return .ok(["posts": [], "agents": [], "submolts": []]) }
        let found = index.posts.reversed().compactMap { ref -> SandboxPost? in
            guard let post = posts[ref.id], !post.deleted, isVisible(post.status),
                post.title.lowercased().contains(q) || (post.content?.lowercased().contains(q) ?? false)
            else { return nil }
            return post
        }
        let score = { (post: SandboxPost) in post.upvotes - post.downvotes }
        let ranked = found.enumerated().sorted {
            score($0.element) != score($1.element) ? score($0.element) > score($1.element) : $0.offset < $1.offset
        }
        let matchedAgents = agents.values.filter {
            $0.name.lowercased().contains(q) || $0.description.lowercased().contains(q)
        }
        .sorted { karma(of: $0.id) != karma(of: $1.id) ? karma(of: $0.id) > karma(of: $1.id) : $0.name < $1.name }
        let matchedSubmolts = submolts.values.filter {
            isVisible($0.status)
                && ($0.name.contains(q) || $0.displayName.lowercased().contains(q)
                    || $0.description.lowercased().contains(q))
        }
        .sorted {
            $0.subscribers.count != $1.subscribers.count
                ? $0.subscribers.count > $1.subscribers.count : $0.name < $1.name
        }
        return .ok([
            "posts": .array(ranked.prefix(limit).map { .object(ossPostItem($0.element)) }),
            "agents": .array(
                matchedAgents.prefix(limit).map {
                    [
                        "id": .string($0.id), "name": .string($0.name), "display_name": .string($0.name),
                        "description": .string($0.description), "karma": .int(karma(of: $0.id)), "is_claimed": true,
                    ]
                }),
            "submolts": .array(
                matchedSubmolts.prefix(limit).map {
                    [
                        "id": .string($0.id), "name": .string($0.name), "display_name": .string($0.displayName),
                        "description": .string($0.description), "subscriber_count": .int($0.subscribers.count),
                    ]
                }),
        ])
    }

    // MARK: Rate-limit headers

    /// On the OSS server `POST /posts` and comment creation report their own limiter in
    /// `X-RateLimit-*` (post: limit 1; comments: the hourly cap), not the request limiter's; nil for
    /// other endpoints, or when that limiter is off.
    func ossActionRateHeaders(_ endpoint: SandboxEndpoint, agentID: String, now: Date) -> [(String, String)]? {
        guard let agent = agents[agentID] else { return nil }
        let profile = limitProfile(of: agentID, now: now)
        let limit: Int
        let remaining: Int
        let reset: Date
        switch endpoint {
        case .createPost:
            guard let cooldown = profile.postCooldownSeconds else { return nil }
            let ends = agent.postTimes.last.map { $0.addingTimeInterval(Double(cooldown)) }
            if let ends, now < ends {
                (limit, remaining, reset) = (1, 0, ends)
            } else {
                (limit, remaining, reset) = (1, 1, now.addingTimeInterval(Double(cooldown)))
            }
        case .createComment:
            guard let perHour = profile.commentsPerHour else { return nil }
            let hourAgo = now.addingTimeInterval(-3600)
            let lastHour = agent.commentTimes.filter { $0 > hourAgo && $0 <= now }
            limit = perHour
            remaining = max(0, perHour - lastHour.count)
            reset = (lastHour.first ?? now).addingTimeInterval(3600)
        default:
            return nil
        }
        return [
            ("X-RateLimit-Limit", String(limit)),
            ("X-RateLimit-Remaining", String(remaining)),
            ("X-RateLimit-Reset", String(SandboxTime.unixSeconds(reset))),
        ]
    }
}
