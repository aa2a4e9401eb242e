import Foundation
import MoltbookAPI
import Recipes

/// Applies a selector's filters to fetched posts. Pure: `now` and the agent name are parameters.
public enum TargetFilter {
    /// The posts that pass every filter, in feed order, minus `excluded` ids, at most
    /// `selector.maxPerRun`.
    public static func select(
        _ posts: [Post], selector: Selector, agent: String, now: Date, excluded: Set<String> = []
    ) -> [Post] {
        let title = selector.titleMatches.flatMap { try? Regex($0.value) }
        let content = selector.contentMatches.flatMap { try? Regex($0.value) }
        let authors = Set(selector.authors.map { $0.lowercased() })
        let excludedAuthors = Set(selector.excludeAuthors.map { $0.lowercased() })
        var picked: [Post] = []
        for post in posts where !excluded.contains(post.id) {
            let author = post.author?.name.lowercased()
            if selector.notMine, author == agent.lowercased() { continue }
            if !authors.isEmpty, !authors.contains(author ?? "") { continue }
            if let author, excludedAuthors.contains(author) { continue }
            if let minScore = selector.minScore, post.score < minScore { continue }
            if let maxAge = selector.maxAge {
                guard let created = post.createdAt, now.timeIntervalSince(created) <= TimeInterval(maxAge) else {
                    continue
                }
            }
            if let title, (try? title.firstMatch(in: post.title)) == nil { continue }
            if let content, (try? content.firstMatch(in: post.content ?? "")) == nil { continue }
            picked.append(post)
            if picked.count >= selector.maxPerRun { break }
        }
        return picked
    }

    /// The fields a comment template may use: `{{ post.title }}` and friends.
    public static func templateFields(of post: Post) -> [String: String] {
        [
            "id": post.id, "title": post.title, "author": post.author?.name ?? "",
            "submolt": post.submolt?.name ?? "", "url": post.url ?? "", "score": String(post.score),
        ]
    }
}
