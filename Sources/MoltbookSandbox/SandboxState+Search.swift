import Foundation

/// `GET /search`: keyword matching dressed in the 1.9+ semantic-search response shape.
extension SandboxState {
    /// Words of at least two characters, lowercased.
    static func keywords(_ text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init).filter { $0.count >= 2 }
    }

    /// `GET /search?q&type=posts|comments|all&limit&cursor`; `similarity` is the share of query words found.
    func search(_ agentID: String, _ query: [String: String]) -> APIResult {
        if config.dialect == .oss { return ossSearch(query) }
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
        // Only items sharing a word with the query can score. Each word's posts and comments are
        // lists ordered by time; an item's similarity is the share of the query's lists it is in.
        var lists: [(refs: [SandboxIndex.Ref], isPost: Bool)] = []
        for word in words.sorted() {
            if type != "comments", let refs = index.postsByKeyword[word] { lists.append((refs, true)) }
            if type != "posts", let refs = index.commentsByKeyword[word] { lists.append((refs, false)) }
        }
        func hit(_ ref: SandboxIndex.Ref, isPost: Bool, found: Int) -> SearchHit? {
            if isPost {
                guard let post = posts[ref.id], !post.deleted, isVisible(post.status) else { return nil }
            } else {
                guard let comment = comments[ref.id], isVisible(comment.status),
                    let post = posts[comment.postID], !post.deleted, isVisible(post.status)
                else { return nil }
            }
            let similarity = (Double(found) / Double(words.count) * 100).rounded() / 100
            return SearchHit(id: ref.id, similarity: similarity, createdAt: ref.createdAt, seq: ref.seq, isPost: isPost)
        }
        let limit = SandboxPagination.limit(query, default: 20, max: 50)
        let ordered: [SearchHit]
        if (query["cursor"] ?? "").isEmpty {
            // The first page: walk the lists together from the newest item and stop once no older
            // item can rank among the best `limit + 1` (the order is total, so the page is the same
            // as sorting every hit).
            var heads = lists.map { $0.refs.count - 1 }
            var best: [SearchHit] = []
            while true {
                var newest: SandboxIndex.Ref?
                var found = 0
                var isPost = true
                for (list, head) in zip(lists, heads) where head >= 0 {
                    let ref = list.refs[head]
                    if let current = newest, ref.seq == current.seq {
                        found += 1
                    } else if newest.map({ $0.isBefore(ref) }) ?? true {
                        (newest, found, isPost) = (ref, 1, list.isPost)
                    }
                }
                guard let newest else { break }
                for index in heads.indices where heads[index] >= 0 && lists[index].refs[heads[index]].seq == newest.seq
                {
                    heads[index] -= 1
                }
                if let hit = hit(newest, isPost: isPost, found: found) {
                    SearchHit.keep(hit, in: &best, count: limit + 1)
                }
                // Every item still unseen is older: it can only rank above a kept hit with a higher
                // similarity, and it is in at most as many lists as still have items.
                let remaining = heads.indices.filter { heads[$0] >= 0 }.count
                let bound = (Double(min(remaining, words.count)) / Double(words.count) * 100).rounded() / 100
                if best.count == limit + 1, let last = best.last, last.similarity >= bound { break }
            }
            ordered = best
        } else {
            var found: [String: (ref: SandboxIndex.Ref, isPost: Bool, count: Int)] = [:]
            for list in lists {
                for ref in list.refs { found[ref.id, default: (ref, list.isPost, 0)].count += 1 }
            }
            ordered = found.values.compactMap { hit($0.ref, isPost: $0.isPost, found: $0.count) }
                .sorted(by: SearchHit.ranksBefore)
        }
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
            "created_at": .string(post.createdAtText), "similarity": .double(score),
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

    /// Adds `hit` to `kept` (rank order, at most `count`) if it ranks among the best.
    static func keep(_ hit: SearchHit, in kept: inout [SearchHit], count: Int) {
        if kept.count == count, let last = kept.last, !ranksBefore(hit, last) { return }
        let position = kept.firstIndex { ranksBefore(hit, $0) } ?? kept.count
        kept.insert(hit, at: position)
        if kept.count > count { kept.removeLast() }
    }
}
