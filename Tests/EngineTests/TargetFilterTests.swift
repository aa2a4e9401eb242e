import Foundation
import MoltbookAPI
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan
import Recipes
import Testing

@Suite("Selector filters")
struct TargetFilterTests {
    /// The selector of a vote step, decoded from YAML as a recipe would be.
    static func selector(_ fields: String) throws -> Selector {
        let yaml = """
            agent: a
            jobs:
              - id: j
                schedule: { every: 1h }
                steps:
                  - vote:
                      ensure: upvoted
                      on: { source: submolt, submolt: general, \(fields) }
            """
        let recipe = try RecipeLoader.load(bytes: Array(yaml.utf8), file: "t.yaml").get()
        guard case .vote(let action) = recipe.jobs[0].steps[0].action, case .selected(let selector) = action.target
        else { throw CocoaError(.featureUnsupported) }
        return selector
    }

    static func post(
        _ id: String, title: String, content: String? = nil, author: String = "someone", submolt: String? = "general"
    ) -> Post {
        let json: JSONValue = .object([
            "id": .string(id), "title": .string(title), "content": content.map(JSONValue.string) ?? .null,
            "author": .object(["name": .string(author)]), "created_at": .string("2026-03-02T00:00:00+00:00"),
            "submolt": submolt.map { .object(["name": .string($0)]) } ?? .null,
        ])
        return Post(json: json)!
    }

    /// Issue 33, observation 7: the selector's submolt holds on what is selected, whatever the
    /// server's feed held: a post of another submolt, or one that does not say, is not taken
    /// (a name differing only in case is the same submolt).
    @Test func theSubmoltIsCheckedNotTrusted() throws {
        let selector = try Self.selector("max_per_run: 5")
        let posts = [
            Self.post("1", title: "here"), Self.post("2", title: "there", submolt: "introductions"),
            Self.post("3", title: "unsaid", submolt: nil), Self.post("4", title: "cased", submolt: "General"),
        ]
        let now = Date(timeIntervalSince1970: 1_772_500_000)
        #expect(TargetFilter.select(posts, selector: selector, agent: "a", now: now).map(\.id) == ["1", "4"])
    }

    static let posts = [
        post("1", title: "Swift 6.3 Release notes", content: "what changed"),
        post("2", title: "Lunch", content: "a CHANGELOG of my sandwich"),
        post("3", title: "release day", content: "shipping", author: "A"),
        post("4", title: "Ünïcode RELEASE ✨", content: nil),
    ]

    /// `title_matches` and `content_matches` are ICU expressions, as `validate` checks them:
    /// `(?i)` folds case, and both filters must hold.
    @Test func patternsFilterTitlesAndContent() throws {
        let now = Date(timeIntervalSince1970: 1_772_409_600)
        let byTitle = try Self.selector(#"title_matches: "(?i)release", max_per_run: 10"#)
        #expect(TargetFilter.select(Self.posts, selector: byTitle, agent: "a", now: now).map(\.id) == ["1", "4"])
        let caseSensitive = try Self.selector(#"title_matches: "release", max_per_run: 10, not_mine: false"#)
        #expect(TargetFilter.select(Self.posts, selector: caseSensitive, agent: "a", now: now).map(\.id) == ["3"])
        let both = try Self.selector(
            #"title_matches: "^\\w+", content_matches: "(?i)changelog|changed", max_per_run: 10"#)
        #expect(TargetFilter.select(Self.posts, selector: both, agent: "a", now: now).map(\.id) == ["1", "2"])
        let anchored = try Self.selector(#"content_matches: "^shipping$", max_per_run: 10, not_mine: false"#)
        #expect(TargetFilter.select(Self.posts, selector: anchored, agent: "a", now: now).map(\.id) == ["3"])
    }

    /// The agent's own posts are skipped unless `not_mine: false`.
    @Test func ownPostsSkipped() throws {
        let now = Date(timeIntervalSince1970: 1_772_409_600)
        let selector = try Self.selector(#"title_matches: "(?i)release", max_per_run: 10"#)
        #expect(TargetFilter.select(Self.posts, selector: selector, agent: "a", now: now).map(\.id) == ["1", "4"])
        #expect(
            TargetFilter.select(Self.posts, selector: selector, agent: "nobody", now: now).map(\.id) == ["1", "3", "4"])
    }
}
