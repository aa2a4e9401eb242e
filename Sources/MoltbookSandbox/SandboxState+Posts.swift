import Foundation

/// Creating, reading, listing and deleting posts; the global, personal and per-submolt feeds.
extension SandboxState {
    static let postSorts = ["hot", "new", "top", "rising"]

    /// `POST /posts {submolt_name|submolt, title, content?, url?, type?}` (the OSS server reads only `submolt`).
    mutating func createPost(_ agentID: String, _ body: JSON?, now: Date) -> APIResult {
        if let refusal = claimRefusal(agentID) { return refusal }
        if let refusal = postRefusal(agentID, now: now) { return rateLimited(refusal) }
        let dialect = config.dialect
        if dialect.chargesBeforeValidation { agents[agentID]?.postTimes.append(now) }
        // The OSS server lower-cases `submolt` after validating the rest: without it, a TypeError (500).
        let submoltMissing = dialect == .oss && body?["submolt"]?.stringValue == nil
        let submoltName =
            dialect == .oss
            ? body?["submolt"]?.stringValue?.lowercased()
            : (body?["submolt_name"]?.stringValue ?? body?["submolt"]?.stringValue)?.lowercased()
        guard submoltMissing || submoltName?.isEmpty == false, let title = body?["title"]?.stringValue, !title.isEmpty
        else {
            return .badRequest("Missing required fields", hint: "Provide submolt and title")
        }
        guard title.count <= 300 else {
            return .badRequest("Title too long", hint: "Titles are at most 300 characters")
        }
        let content = body?["content"]?.stringValue
        if let content, content.count > 40_000 {
            return .badRequest("Content too long", hint: "Content is at most 40000 characters")
        }
        guard !submoltMissing, let submoltName else { return Self.ossUndefinedSubmolt }
        let url = body?["url"]?.stringValue
        let type = body?["type"]?.stringValue ?? (url == nil ? "text" : "link")
        guard ["text", "link", "image"].contains(type) else {
            return .badRequest("Invalid type", hint: "type is text, link or image")
        }
        guard let submolt = submolts[submoltName], submolt.status.isVisible else {
            return .notFound("Submolt not found", hint: "Check GET /api/v1/submolts for names")
        }
        let printed = [title, content, url].compactMap { $0 }.joined(separator: "\n")
        if let refusal = duplicateRefusal(agentID, text: printed, now: now) { return refusal }
        let id = random.uuid()
        let held = heldChallenge(agentID: agentID, target: .post, contentID: id, text: printed, now: now)
        if let held, let challenge = held { return heldAnswer(challenge, what: "post") }
        let challenge =
            held == nil ? maybeIssueChallenge(agentID: agentID, target: .post, contentID: id, now: now) : nil
        let post = SandboxPost(
            id: id, seq: takeSeq(), authorID: agentID, submolt: submolt.name, title: title, content: content, url: url,
            type: type, createdAt: now, createdAtText: SandboxTime.iso(now),
            status: challenge == nil ? .published : .pending)
        posts[id] = post
        if index.insert(post) { counters.duplicateContents += 1 }
        if !dialect.chargesBeforeValidation { agents[agentID]?.postTimes.append(now) }
        submolts[submolt.name]?.lastActivityAt = now
        counters.postsCreated += 1
        if challenge == nil { published(post, at: now) }
        if challenge == nil, let answer = config.createAnswer.answer(resource: "post", id: id) { return answer }
        switch dialect {
        case .moltbookCom:
            break
        case .oss:
            return .ok(["post": .object(ossPostItem(post))], status: 201)
        case .minimalMock:
            if let challenge { return Self.minimalMockChallenge(challenge) }
            return .ok(["message": "Post created!", "post": .object(minimalMockPostItem(post))], status: 201)
        }
        var json = postJSON(post)
        var message: JSON = "Post created! 🦞"
        if let challenge {
            json["verification"] = Self.verificationJSON(challenge)
            message = "Post created! Complete the verification challenge to publish it. 🦞"
        }
        return .ok(["message": message, "post": .object(json)], status: 201)
    }

    /// `GET /posts?sort&limit&cursor&submolt=`.
    mutating func listPosts(_ agentID: String, _ query: [String: String], submolt given: String?, now: Date)
        -> APIResult
    {
        // `ignore_submolt_filter`: a server that lists every submolt's posts whatever was asked.
        let submolt = config.ignoreSubmoltFilter ? nil : given
        let candidates = submolt.map { index.postsBySubmolt[$0.lowercased()] ?? [] } ?? index.posts
        return postList(candidates, query, defaultSort: "hot", now: now)
    }

    /// `GET /feed?sort&limit&cursor&filter=all|following`: subscribed submolts plus followed agents.
    mutating func feed(_ agentID: String, _ query: [String: String], now: Date) -> APIResult {
        guard let agent = agents[agentID] else { return .notFound("Bot not found") }
        let filter = query["filter"] ?? "all"
        guard filter == "all" || filter == "following" else {
            return .badRequest("Invalid filter", hint: "filter is all or following")
        }
        var lists = agent.following.map { index.postsByAuthor[$0] ?? [] }
        if filter == "all" { lists += agent.subscriptions.map { index.postsBySubmolt[$0] ?? [] } }
        var seen: Set<String> = []
        let candidates = lists.joined().filter { seen.insert($0.id).inserted }.sorted { $0.isBefore($1) }
        return postList(candidates, query, defaultSort: "hot", now: now)
    }

    /// `GET /submolts/NAME/feed`.
    mutating func submoltFeed(_ agentID: String, name: String, _ query: [String: String], now: Date) -> APIResult {
        guard submolts[name.lowercased()] != nil else { return .notFound("Submolt not found") }
        return listPosts(agentID, query, submolt: name, now: now)
    }

    /// One page of the visible posts among `candidates` (oldest first). `new` walks the list from
    /// its newest end and stops after the page; the other orders depend on scores and sort it all.
    private mutating func postList(
        _ candidates: [SandboxIndex.Ref], _ given: [String: String], defaultSort: String, now: Date
    ) -> APIResult {
        // `ignore_paging`: a server that pages nothing (the first page, whatever was asked).
        let query = config.ignorePaging ? given.filter { $0.key != "cursor" && $0.key != "offset" } : given
        var sort = query["sort"] ?? defaultSort
        if !Self.postSorts.contains(sort) {
            // The other servers fall back to the default order.
            guard config.dialect != .moltbookCom else {
                return .badRequest("Invalid sort", hint: "sort is hot, new, top or rising")
            }
            sort = defaultSort
        }
        let limit = SandboxPagination.limit(query, default: 25, max: 100)
        let (posts, hidePending) = (posts, config.hidePendingContent)
        let visible = { (ref: SandboxIndex.Ref) -> SandboxPost? in
            // `isVisible`, without capturing `self` (this method mutates: the list cache).
            guard let post = posts[ref.id], !post.deleted, post.status.isVisible || !hidePending else { return nil }
            return post
        }
        guard config.dialect == .moltbookCom else {
            // Offset pagination (`?offset=`), no cursors.
            let offset = max(0, Int(query["offset"] ?? "") ?? 0)
            let items =
                sort == "new"
                ? Array(candidates.reversed().lazy.compactMap(visible).dropFirst(offset).prefix(limit))
                : Array(
                    Self.sortPosts(candidates.compactMap(visible), by: sort, now: now).dropFirst(offset).prefix(limit))
            return dialectPostList(items, limit: limit, offset: offset)
        }
        let found =
            sort == "new"
            ? SandboxPagination.page(
                lazy: candidates.reversed().lazy.compactMap(visible), id: \.id, limit: limit, cursor: query["cursor"])
            : SandboxPagination.page(
                Self.sortPosts(candidates.compactMap(visible), by: sort, now: now), id: \.id, limit: limit,
                cursor: query["cursor"])
        guard let page = found else {
            return SandboxPagination.invalidCursor
        }
        var fields: [String: JSON] = [
            "posts": .array(page.items.map { listedPostJSON($0) }), "count": .int(page.items.count),
            "has_more": .bool(page.hasMore), "next_cursor": .optional(page.nextCursor), "authenticated": true,
        ]
        if config.ignorePaging {
            fields["has_more"] = nil
            fields["next_cursor"] = nil
        }
        return .ok(fields)
    }

    /// Orders posts: `new` by time, `top` by score, `hot` Reddit-style, `rising` by score over age at `now`.
    static func sortPosts(_ posts: [SandboxPost], by sort: String, now: Date) -> [SandboxPost] {
        func score(_ post: SandboxPost) -> Int { post.upvotes - post.downvotes }
        func hot(_ post: SandboxPost) -> Double {
            let s = score(post)
            let order = log10(Double(max(abs(s), 1)))
            let sign: Double = s > 0 ? 1 : (s < 0 ? -1 : 0)
            return sign * order + (post.createdAt.timeIntervalSince1970 - 1_134_028_003) / 45_000
        }
        func rising(_ post: SandboxPost) -> Double {
            let hours = max(0, now.timeIntervalSince(post.createdAt)) / 3600
            return Double(score(post) + 1) / pow(hours + 2, 1.5)
        }
        let newest: (SandboxPost, SandboxPost) -> Bool = { ($0.createdAt, $0.seq) > ($1.createdAt, $1.seq) }
        switch sort {
        case "new": return posts.sorted(by: newest)
        case "top": return posts.sorted { score($0) != score($1) ? score($0) > score($1) : newest($0, $1) }
        case "rising": return posts.sorted { rising($0) != rising($1) ? rising($0) > rising($1) : newest($0, $1) }
        default: return posts.sorted { hot($0) != hot($1) ? hot($0) > hot($1) : newest($0, $1) }
        }
    }

    /// `GET /posts/ID`: the post with a detailed author and its comment tree.
    func getPost(_ agentID: String, id: String) -> APIResult {
        guard let post = posts[id], !post.deleted, isVisible(post.status) || post.authorID == agentID else {
            return .notFound("Post not found")
        }
        switch config.dialect {
        case .moltbookCom:
            break
        case .oss:
            var json = ossPostItem(post)
            json["userVote"] = ossUserVote(agentID, on: post.id)
            return .ok(["post": .object(json)])
        case .minimalMock:
            return APIResult(
                status: 200,
                body: [
                    "post": .object(minimalMockPostItem(post)),
                    "comments": .array(dialectCommentTree(postID: id, parentID: nil, sort: "best")),
                ])
        }
        var json = postJSON(post)
        if let author = agents[post.authorID] {
            var detail: [String: JSON] = [
                "id": .string(author.id), "name": .string(author.name), "description": .string(author.description),
                "karma": .int(karma(of: author.id)), "follower_count": .int(author.followers.count),
                "following_count": .int(author.following.count), "owner": ownerJSON(author),
            ]
            detail["you_follow"] = .bool(author.followers.contains(agentID))
            json["author"] = .object(detail)
        }
        json["your_vote"] = yourVote(agentID, on: post.id)
        return .ok([
            "post": .object(json), "comments": .array(commentTree(postID: id, viewer: agentID, sort: "best")),
            "context": ["tip": "Upvote what you like; voting twice removes your vote."],
        ])
    }

    /// `DELETE /posts/ID` (own posts only).
    mutating func deletePost(_ agentID: String, id: String) -> APIResult {
        guard let post = posts[id], !post.deleted else { return .notFound("Post not found") }
        guard post.authorID == agentID else {
            return .error(403, "You can only delete your own posts")
        }
        if config.deleteRemovesPost {
            posts[id]?.deleted = true
            index.addKarma(post.downvotes - post.upvotes, to: post.authorID)
        }
        return .ok(["message": "Post deleted"])
    }
}
