import Foundation

extension MoltbookClient {
    /// `POST /posts/ID/comments`; a reply when `parentID` is set.
    public func createComment(postID: String, content: String, parentID: String? = nil)
        async throws(APIError) -> MoltbookResponse<Created<Comment>>
    {
        let endpoint = "POST /posts/ID/comments"
        guard !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIError(code: .invalidRequest, message: "a comment needs content", endpoint: endpoint)
        }
        guard content.utf16.count <= Self.maxCommentLength else {
            throw APIError(
                code: .invalidRequest,
                message: "the comment has \(content.utf16.count) characters; the limit is \(Self.maxCommentLength)",
                endpoint: endpoint)
        }
        var body: [String: JSONValue] = ["content": .string(content)]
        if let parentID { body["parent_id"] = .string(parentID) }
        let response = try await call(.post, ["posts", postID, "comments"], body: .json(.object(body)))
        return try created(response, key: "comment", endpoint: endpoint, decode: Comment.init(json:))
    }

    /// `GET /posts/ID/comments`: top-level comments with their `replies` trees.
    public func comments(
        postID: String, sort: CommentSort = .new, limit: Int? = nil, cursor: String? = nil, offset: Int? = nil
    ) async throws(APIError) -> MoltbookResponse<Page<Comment>> {
        let response = try await call(
            .get, ["posts", postID, "comments"],
            query: [
                ("sort", sort.rawValue), ("limit", limit.map(String.init)), ("cursor", cursor),
                ("offset", offset.map(String.init)),
            ])
        return try page(response, keys: ["comments"], endpoint: "GET /posts/ID/comments", decode: Comment.init(json:))
    }
}
