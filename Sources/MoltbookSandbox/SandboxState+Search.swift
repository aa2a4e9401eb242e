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
        // Only items sharing a word with the query can score; their words were tokenised on insert.
        func similarity(_ id: String) -> Double {
            let found = index.keywords[id]?.intersection(words).count ?? 0
            return (Double(found) / Double(words.count) * 100).rounded() / 100
        }
        func candidates(_ byKeyword: [String: [String]]) -> Set<String> {
            var ids: Set<String> = []
            for word in words { ids.formUnion(byKeyword[word] ?? []) }
            return ids
        }
        var hits: [SearchHit] = []
        if type != "comments" {
            for id in candidates(index.postsByKeyword) {
                guard let post = posts[id], !post.deleted, isVisible(post.status) else { continue }
                hits.append(SearchHit(id: id, similarity: similarity(id), createdAt: post.createdAt, seq: post.seq))
            }
        }
        if type != "posts" {
            for id in candidates(index.commentsByKeyword) {
                guard let comment = comments[id], isVisible(comment.status),
                    let post = posts[comment.postID], !post.deleted, isVisible(post.status)
                else { continue }
                hits.append(
                    SearchHit(
                        id: id, similarity: similarity(id), createdAt: comment.createdAt, seq: comment.seq,
                        isPost: false))
            }
        }
        let limit = SandboxPagination.limit(query, default: 20, max: 50)
        // The first page needs only the best `limit + 1` hits (the order is total, so the page is the same).
        let ordered =
            (query["cursor"] ?? "").isEmpty
            ? SearchHit.best(limit + 1, of: hits) : hits.sorted(by: SearchHit.ranksBefore)
        guard let page = SandboxPagination.page(ordered, id: \.id, limit: limit, cursor: query["cursor"]) else {
            return SandboxPagination.invalidCursor
        }
        return .ok([
            "query": .string(q), "type": .string(type),
            "results": .array(
                page.items.map { $0.isPost ? postHit($0.id, $0.similarity) : commentHit($0.id, $0.similarity) }),
            "count": .int(page.items.count), "has_more": .bool(page.hasMore), "next_cursor": .optional(page.nextCursor),
        ])
    }

    private func postHit(_ id: String, _ score: Double) -> JSON {
        guard let post = posts[id] else { return .null }
        return [
            "id": .string(post.id), "type": "post", "title": .string(post.title),
            "content": .optional(post.content), "upvotes": .int(post.upvotes),
            "downvotes": .int(post.downvotes),
            "created_at": .string(SandboxTime.iso(post.createdAt)), "similarity": .double(score),
            "author": ["name": .optional(agents[post.authorID]?.name)],
            "submolt": submoltBrief(post.submolt),
            "post_id": .string(post.id),
        ]
    }

    private func commentHit(_ id: String, _ score: Double) -> JSON {
        guard let comment = comments[id], let post = posts[comment.postID] else { return .null }
        return [
            "id": .string(comment.id), "type": "comment", "title": nil,
            "content": .string(comment.content),
            "upvotes": .int(comment.upvotes), "downvotes": .int(comment.downvotes),
            "created_at": .string(SandboxTime.iso(comment.createdAt)), "similarity": .double(score),
            "author": ["name": .optional(agents[comment.authorID]?.name)],
            "post": ["id": .string(post.id), "title": .string(post.title)], "post_id": .string(post.id),
        ]
    }
}

/// A search result before rendering: best similarity first, then newest.
struct SearchHit {
    var id: String
    var similarity: Double
    var createdAt: Date
    var seq: Int
    var isPost = true

    static func ranksBefore(_ lhs: SearchHit, _ rhs: SearchHit) -> Bool {
        lhs.similarity != rhs.similarity
            ? lhs.similarity > rhs.similarity : (lhs.createdAt, lhs.seq) > (rhs.createdAt, rhs.seq)
    }

    /// The first `count` of `hits` in rank order, without sorting them all.
    static func best(_ count: Int, of hits: [SearchHit]) -> [SearchHit] {
        var kept: [SearchHit] = []
        kept.reserveCapacity(count + 1)
        for hit in hits {
            if kept.count == count, let last = kept.last, !ranksBefore(hit, last) { continue }
            let position = kept.firstIndex { ranksBefore(hit, $0) } ?? kept.count
            kept.insert(hit, at: position)
            if kept.count > count { kept.removeLast() }
        }
        return kept
    }
}
