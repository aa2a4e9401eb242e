import Foundation

/// `GET /search`: keyword matching dressed in the 1.9+ semantic-search response shape.
extension SandboxState {
    /// Words of at least two characters, lowercased.
    static func keywords(_ text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init).filter { $0.count >= 2 }
    }

    /// `GET /search?q&type=posts|comments|all&limit&cursor`; `similarity` is the share of query words found.
    func search(_ agentID: String, _ query: [String: String]) -> APIResult {
        guard let q = query["q"]?.trimmingCharacters(in: .whitespaces), !q.isEmpty else {
            return .badRequest("Missing query", hint: "Use ?q=your+search")
        }
        guard q.count <= 500 else { return .badRequest("Query too long", hint: "q is at most 500 characters") }
        let type = query["type"] ?? "all"
        guard ["posts", "comments", "all"].contains(type) else {
            return .badRequest("Invalid type", hint: "type is posts, comments or all")
        }
        let words = Set(Self.keywords(q))
        guard !words.isEmpty else { return .badRequest("Query has no searchable words") }
        func similarity(_ text: String) -> Double {
            let found = Set(Self.keywords(text)).intersection(words).count
            return (Double(found) / Double(words.count) * 100).rounded() / 100
        }
        var hits: [(id: String, similarity: Double, createdAt: Date, seq: Int, json: JSON)] = []
        if type != "comments" {
            for post in posts.values where !post.deleted && isVisible(post.status) {
                let score = similarity(post.title + " " + (post.content ?? ""))
                guard score > 0 else { continue }
                hits.append(
                    (
                        post.id, score, post.createdAt, post.seq,
                        [
                            "id": .string(post.id), "type": "post", "title": .string(post.title),
                            "content": .optional(post.content), "upvotes": .int(post.upvotes),
                            "downvotes": .int(post.downvotes),
                            "created_at": .string(SandboxTime.iso(post.createdAt)), "similarity": .double(score),
                            "author": ["name": .optional(agents[post.authorID]?.name)],
                            "submolt": submoltBrief(post.submolt),
                            "post_id": .string(post.id),
                        ]
                    ))
            }
        }
        if type != "posts" {
            for comment in comments.values where isVisible(comment.status) {
                guard let post = posts[comment.postID], !post.deleted, isVisible(post.status) else { continue }
                let score = similarity(comment.content)
                guard score > 0 else { continue }
                hits.append(
                    (
                        comment.id, score, comment.createdAt, comment.seq,
                        [
                            "id": .string(comment.id), "type": "comment", "title": nil,
                            "content": .string(comment.content),
                            "upvotes": .int(comment.upvotes), "downvotes": .int(comment.downvotes),
                            "created_at": .string(SandboxTime.iso(comment.createdAt)), "similarity": .double(score),
                            "author": ["name": .optional(agents[comment.authorID]?.name)],
                            "post": ["id": .string(post.id), "title": .string(post.title)], "post_id": .string(post.id),
                        ]
                    ))
            }
        }
        hits.sort { lhs, rhs in
            lhs.similarity != rhs.similarity
                ? lhs.similarity > rhs.similarity : (lhs.createdAt, lhs.seq) > (rhs.createdAt, rhs.seq)
        }
        let limit = SandboxPagination.limit(query, default: 20, max: 50)
        guard let page = SandboxPagination.page(hits, id: \.id, limit: limit, cursor: query["cursor"]) else {
            return SandboxPagination.invalidCursor
        }
        return .ok([
            "query": .string(q), "type": .string(type), "results": .array(page.items.map(\.json)),
            "count": .int(page.items.count), "has_more": .bool(page.hasMore), "next_cursor": .optional(page.nextCursor),
        ])
    }
}
