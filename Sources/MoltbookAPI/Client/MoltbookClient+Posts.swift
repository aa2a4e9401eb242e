import Foundation

extension MoltbookClient {
    /// Moltbook's documented size limits, checked before sending, in UTF-16 code units as servers
    /// count them (Recipes' `MoltbookSizeLimits.length`; an emoji counts 2).
    public static let maxTitleLength = 300
    public static let maxPostContentLength = 40_000
    public static let maxCommentLength = 10_000

    /// `POST /posts`: a text or link post. A verification challenge comes back as data.
    public func createPost(_ post: NewPost) async throws(APIError) -> MoltbookResponse<Created<Post>> {
        let endpoint = "POST /posts"
        guard !post.title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, !post.submolt.isEmpty else {
            throw APIError(code: .invalidRequest, message: "a post needs a submolt and a title", endpoint: endpoint)
        }
        guard post.title.utf16.count <= Self.maxTitleLength else {
            throw APIError(
                code: .invalidRequest,
                message: "the title has \(post.title.utf16.count) characters; the limit is \(Self.maxTitleLength)",
                endpoint: endpoint)
        }
        if let content = post.content, content.utf16.count > Self.maxPostContentLength {
            throw APIError(
                code: .invalidRequest,
                message: "the content has \(content.utf16.count) characters; the limit is \(Self.maxPostContentLength)",
                endpoint: endpoint)
        }
        let response = try await call(.post, ["posts"], body: .json(post.json))
        return try created(response, key: "post", endpoint: endpoint, decode: Post.init(json:))
    }

    /// `GET /posts/ID`: the post with its comment tree.
    public func post(id: String) async throws(APIError) -> MoltbookResponse<PostDetail> {
        let response = try await call(.get, ["posts", id])
        guard let json = Envelope.item(response.value, keys: ["post"]), let post = Post(json: json) else {
            throw shapeError("GET /posts/ID", "post", response)
        }
        let list = response.value["comments"]?.array ?? json["comments"]?.array
        let comments = (list ?? []).compactMap(Comment.init(json:))
        return response.map { _ in PostDetail(post: post, comments: comments, commentsIncluded: list != nil) }
    }

    /// `DELETE /posts/ID`. Production has answered success without deleting: confirm with `post(id:)`.
    public func deletePost(id: String) async throws(APIError) -> MoltbookResponse<JSONValue> {
        try await call(.delete, ["posts", id])
    }

    /// `GET /posts`: the global feed, or one submolt's with `submolt`.
    /// `offset` pages a server that names no cursor (the open-source server's `pagination.offset`).
    public func posts(
        sort: PostSort = .new, limit: Int? = nil, cursor: String? = nil, submolt: String? = nil, offset: Int? = nil
    ) async throws(APIError) -> MoltbookResponse<Page<Post>> {
        let response = try await call(
            .get, ["posts"],
            query: [
                ("sort", sort.rawValue), ("limit", limit.map(String.init)), ("cursor", cursor), ("submolt", submolt),
                ("offset", offset.map(String.init)),
            ])
        return try page(response, keys: ["posts", "recentPosts"], endpoint: "GET /posts", decode: Post.init(json:))
    }

    /// `GET /feed`: subscribed submolts and followed agents.
    public func feed(sort: PostSort = .new, limit: Int? = nil, cursor: String? = nil, followingOnly: Bool = false)
        async throws(APIError) -> MoltbookResponse<Page<Post>>
    {
        let response = try await call(
            .get, ["feed"],
            query: [
                ("sort", sort.rawValue), ("limit", limit.map(String.init)), ("cursor", cursor),
                ("filter", followingOnly ? "following" : nil),
            ])
        return try page(response, keys: ["posts"], endpoint: "GET /feed", decode: Post.init(json:))
    }

    /// `GET /submolts/NAME/feed`.
    public func submoltFeed(_ name: String, sort: PostSort = .new, limit: Int? = nil, cursor: String? = nil)
        async throws(APIError) -> MoltbookResponse<Page<Post>>
    {
        let response = try await call(
            .get, ["submolts", name, "feed"],
            query: [("sort", sort.rawValue), ("limit", limit.map(String.init)), ("cursor", cursor)])
        return try page(response, keys: ["posts"], endpoint: "GET /submolts/NAME/feed", decode: Post.init(json:))
    }

    /// `POST /posts/ID/upvote`.
    public func upvotePost(id: String) async throws(APIError) -> MoltbookResponse<VoteResult> {
        vote(try await call(.post, ["posts", id, "upvote"]))
    }

    /// `POST /posts/ID/downvote`.
    public func downvotePost(id: String) async throws(APIError) -> MoltbookResponse<VoteResult> {
        vote(try await call(.post, ["posts", id, "downvote"]))
    }

    /// `POST /comments/ID/upvote` (the only comment vote moltbook.com documents).
    public func upvoteComment(id: String) async throws(APIError) -> MoltbookResponse<VoteResult> {
        vote(try await call(.post, ["comments", id, "upvote"]))
    }

    /// `POST /comments/ID/downvote`: the open-source server's route; moltbook.com does not
    /// document it, so whether it answers there is uncertain.
    public func downvoteComment(id: String) async throws(APIError) -> MoltbookResponse<VoteResult> {
        vote(try await call(.post, ["comments", id, "downvote"]))
    }

    func vote(_ response: MoltbookResponse<JSONValue>) -> MoltbookResponse<VoteResult> {
        response.map { json in
            VoteResult(
                action: VoteOutcome(json["action"]?.string), message: json["message"]?.string,
                authorName: AuthorRef(json: json["author"])?.name,
                alreadyFollowing: json["already_following"]?.bool)
        }
    }

    func page<T: Sendable>(
        _ response: MoltbookResponse<JSONValue>, keys: [String], endpoint: String, decode: (JSONValue) -> T?
    ) throws(APIError) -> MoltbookResponse<Page<T>> {
        guard let list = Envelope.list(response.value, keys: keys) else {
            throw shapeError(endpoint, keys.first ?? "list", response)
        }
        let (hasMore, cursor) = Envelope.pagination(response.value)
        let ended = Envelope.saysEnded(response.value)
        return response.map { _ in
            Page(items: list.compactMap(decode), hasMore: hasMore, nextCursor: cursor, ended: ended)
        }
    }

    func created<T: Sendable>(
        _ response: MoltbookResponse<JSONValue>, key: String, endpoint: String, decode: (JSONValue) -> T?
    ) throws(APIError) -> MoltbookResponse<Created<T>> {
        let challenge = VerificationChallenge.find(in: response.value, resourceKey: key)
        let item = Envelope.item(response.value, keys: [key]).flatMap(decode)
        // Created means created (issue 33, observation 2): a 2xx that names the new object's id in
        // any shape servers use (`{post_id}`, `{id}`, `{data: {id}}` …) is the object's id; a 2xx
        // that says `success: true` and names none is applied with the id still to be found. Only
        // a 2xx that says none of these is unreadable (its outcome unknown).
        let id = Envelope.createdID(response.value, key: key)
        let succeeded = Envelope.saysSuccess(response.value)
        guard item != nil || challenge != nil || id != nil || succeeded else {
            throw shapeError(endpoint, key, response)
        }
        return response.map { json in
            Created(item: item, id: id, challenge: challenge, message: json["message"]?.string)
        }
    }
}
