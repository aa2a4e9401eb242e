import Foundation
import MoltbookAPI
import MoltbookSandbox
import Testing

/// `GET /search` ranks by similarity (the share of query words an item has), then newest first.
/// The first page is found by walking the keyword lists from the newest item and stopping early;
/// later pages sort every hit. Both must give the ranking an exhaustive sort gives.
@Suite("Search ranking")
struct SearchRankingTests {
    struct Item {
        var id: String
        var words: Set<String>
        /// Creation order (ties in time are broken by it, newest first).
        var order: Int
        /// The post a comment is on; nil for a post.
        var postID: String?
    }

    /// A reproducible corpus: posts and comments made of a few words, many at the same instant,
    /// and some posts deleted (their comments leave the results with them).
    static func corpus(seed: UInt64) -> (driver: SandboxDriver, key: String, items: [Item], deleted: Set<String>) {
        let driver = SandboxDriver.relaxed(seed: seed)
        let author = driver.agent("Author")
        let reader = driver.agent("Reader")
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let vocabulary = ["alpha", "beta", "gamma", "delta", "reef"]
        func text() -> [String] { (0..<(1 + next(3))).map { _ in vocabulary[next(vocabulary.count)] } }
        var items: [Item] = []
        var postIDs: [String] = []
        for order in 0..<90 {
            if next(3) > 0 { driver.advance(Double(next(3))) }
            if postIDs.isEmpty || next(3) > 0 {
                let (title, content) = (text(), text())
                let id = driver.post(
                    author, title: title.joined(separator: " "), content: content.joined(separator: " "))
                postIDs.append(id)
                items.append(Item(id: id, words: Set(title + content), order: order))
            } else {
                let words = text()
                let postID = postIDs[next(postIDs.count)]
                let id = driver.comment(reader, on: postID, words.joined(separator: " "))
                items.append(Item(id: id, words: Set(words), order: order, postID: postID))
            }
        }
        var deleted: Set<String> = []
        for _ in 0..<5 {
            let postID = postIDs[next(postIDs.count)]
            if driver.call(.delete, "/posts/\(postID)", key: author).status == 200 { deleted.insert(postID) }
        }
        return (driver, author, items, deleted)
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func pagesMatchAFullSort(seed: UInt64) throws {
        let (driver, key, items, deleted) = Self.corpus(seed: seed)
        #expect(!deleted.isEmpty)
        for (q, type) in [("alpha beta gamma", "all"), ("reef", "posts"), ("delta alpha", "comments")] {
            let words = Set(q.split(separator: " ").map(String.init))
            let expected =
                items
                .filter { !deleted.contains($0.postID ?? $0.id) && !$0.words.isDisjoint(with: words) }
                .filter { type == "all" || (type == "posts") == ($0.postID == nil) }
                .sorted {
                    let (l, r) = ($0.words.intersection(words).count, $1.words.intersection(words).count)
                    return l != r ? l > r : $0.order > $1.order
                }
                .map(\.id)
            #expect(expected.count > 7, "the corpus gives several pages")
            var pages: [String] = []
            var cursor: String?
            repeat {
                var query = ["q": q, "type": type, "limit": "7"]
                if let cursor { query["cursor"] = cursor }
                let answer = driver.call(.get, "/search", key: key, query: query)
                try #require(answer.status == 200)
                pages += answer["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
                cursor = answer["next_cursor"]?.stringValue
            } while cursor != nil && pages.count <= items.count
            #expect(pages == expected, "q=\(q) type=\(type)")
            let single = driver.call(.get, "/search", key: key, query: ["q": q, "type": type, "limit": "50"])
            let first = single["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            #expect(first == Array(expected.prefix(50)), "q=\(q) type=\(type) limit 50")
        }
    }
}
