import Foundation
import MoltbookAPI
import Recipes
import Synchronization

/// Applies a selector's filters to fetched posts. Pure: `now` and the agent name are parameters.
public enum TargetFilter {
    /// The posts that pass every filter, in feed order, minus `excluded` ids, at most
    /// `selector.maxPerRun`. `agent` is the entry's name, taken as the name on the server.
    public static func select(
        _ posts: [Post], selector: Selector, agent: String, now: Date, excluded: Set<String> = []
    ) -> [Post] {
        select(posts, selector: selector, identity: AgentIdentity(name: agent), now: now, excluded: excluded)
    }

    /// The posts that pass every filter, in feed order, minus `excluded` ids, at most
    /// `selector.maxPerRun`. `identity` is who the agent is on the server (`not_mine`).
    ///
    /// Every constraint holds on what is returned, whatever the server's own filtering did: the
    /// submolt of a `source: submolt` selector, the authors, `not_mine`, the score, the age and
    /// the patterns. A post without a creation time passes `max_age`: a server that does not send one
    /// (some do not) would otherwise leave a `max_age` selector nothing, ever; the feed's
    /// `sort: new` order and the dedup facts still keep old posts from being acted on twice.
    public static func select(
        _ posts: [Post], selector: Selector, identity: AgentIdentity, now: Date, excluded: Set<String> = []
    ) -> [Post] {
        // ICU expressions, the same engine `validate` checked them with (Swift's `Regex` accepts a
        // different syntax, and was an order of magnitude slower on `plan`'s month of feeds).
        let title = selector.titleMatches.map { compile($0.value) }
        let content = selector.contentMatches.map { compile($0.value) }
        let authors = Set(selector.authors.map { $0.lowercased() })
        let excludedAuthors = Set(selector.excludeAuthors.map { $0.lowercased() })
        // A submolt's feed is checked, not trusted (issue 33, observation 7: a server that ignores
        // `?submolt=` listed other submolts' posts, and a `submolt: general` step acted on them). A
        // post that does not say its submolt cannot be shown to be in it.
        var submolt: String?
        if case .submolt(let name) = selector.source { submolt = name.lowercased() }
        var picked: [Post] = []
        for post in posts where !excluded.contains(post.id) {
            if let submolt, post.submolt?.name.lowercased() != submolt { continue }
            let author = post.author?.name.lowercased()
            if selector.notMine, identity.isSelf(post.author) { continue }
            if !authors.isEmpty, !authors.contains(author ?? "") { continue }
            if let author, excludedAuthors.contains(author) { continue }
            if let minScore = selector.minScore, post.score < minScore { continue }
            if let maxAge = selector.maxAge {
                if let created = post.createdAt, now.timeIntervalSince(created) > TimeInterval(maxAge) { continue }
            }
            if let title, !matches(title, post.title) { continue }
            if let content, !matches(content, post.content ?? "") { continue }
            picked.append(post)
            if picked.count >= selector.maxPerRun { break }
        }
        return picked
    }

    /// A validated recipe's pattern compiles; one that does not (a recipe not validated) matches nothing.
    /// Compiled once per pattern (a recipe has a handful): ICU's compile cost more than the matching.
    static func compile(_ pattern: String) -> NSRegularExpression? {
        if let known = compiled.withLock({ $0[pattern] }) { return known }
        let expression = try? NSRegularExpression(pattern: pattern)
        compiled.withLock { $0[pattern] = expression }
        return expression
    }

    private static let compiled = Mutex<[String: NSRegularExpression?]>([:])

    static func matches(_ expression: NSRegularExpression?, _ text: String) -> Bool {
        guard let expression else { return false }
        return expression.firstMatch(in: text, range: NSRange(location: 0, length: text.utf16.count)) != nil
    }

    /// The fields a comment template may use: `{{ post.title }}` and friends.
    public static func templateFields(of post: Post) -> [String: String] {
        [
            "id": post.id, "title": post.title, "author": post.author?.name ?? "",
            "submolt": post.submolt?.name ?? "", "url": post.url ?? "", "score": String(post.score),
        ]
    }
}
