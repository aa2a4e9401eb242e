import Determinism
import Foundation
import MoltbookSandbox
import MoltipassEngine
import Recipes

/// The posts other agents write into the simulated Moltbook, so selectors have targets.
///
/// From a fixture (`--feed FILE`) or from `PlanFeed.generate`, a seeded generator: the same
/// seed and recipes give the same posts at the same instants.
public struct PlanFeed: Sendable, Codable, Equatable {
    /// One post by another agent.
    public struct Post: Sendable, Codable, Equatable {
        public var author: String
        public var submolt: String
        public var title: String
        public var content: String
        /// When it is posted (absolute), or…
        public var at: Date?
        /// …seconds after the plan's start (negative: before it).
        public var offsetSeconds: Double?

        public init(author: String, submolt: String, title: String, content: String, at: Date) {
            self.author = author
            self.submolt = submolt
            self.title = title
            self.content = content
            self.at = at
        }

        enum CodingKeys: String, CodingKey {
            case author, submolt, title, content, at
            case offsetSeconds = "offset_seconds"
        }

        func instant(start: Date) -> Date { at ?? start.addingTimeInterval(offsetSeconds ?? 0) }
    }

    public var posts: [Post]

    public init(posts: [Post]) { self.posts = posts }

    /// Reads a fixture: `{"posts": [{"author", "submolt", "title", "content", "at" | "offset_seconds"}]}`.
    public static func load(path: String) throws -> PlanFeed {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PlanError("--feed: cannot read \(path)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(PlanFeed.self, from: data)
        } catch {
            throw PlanError("--feed: \(path) is not a feed fixture (\(error))")
        }
    }

    /// What the recipes read: the submolts they select from or post to, the phrases their
    /// selectors look for, the authors they name.
    public struct Needs: Sendable, Equatable {
        public var submolts: [String] = []
        public var phrases: [String] = []
        public var authors: [String] = []

        public init(recipes: [Recipe]) {
            var submolts: Set<String> = ["general"]
            var phrases: Set<String> = []
            var authors: Set<String> = []
            func add(_ selector: Selector) {
                switch selector.source {
                case .submolt(let name): submolts.insert(name)
                case .search(let query): phrases.insert(query)
                case .global, .personal: break
                }
                if let pattern = selector.titleMatches?.value { phrases.formUnion(Self.literals(in: pattern)) }
                if let pattern = selector.contentMatches?.value { phrases.formUnion(Self.literals(in: pattern)) }
                authors.formUnion(selector.authors)
            }
            for recipe in recipes {
                for job in recipe.jobs {
                    for step in job.steps {
                        switch step.action {
                        case .post(let post): submolts.insert(post.submolt.value)
                        case .comment(let comment): if case .selected(let s) = comment.target { add(s) }
                        case .vote(let vote): if case .selected(let s) = vote.target { add(s) }
                        case .subscribe(let names), .unsubscribe(let names): submolts.formUnion(names.map(\.value))
                        case .follow(let names), .unfollow(let names): authors.formUnion(names.map(\.value))
                        // Answers are about what other agents say to the agent, not the feed.
                        case .reply, .dm: break
                        }
                    }
                }
            }
            let agents = Set(recipes.map(\.agent.value))
            self.submolts = submolts.sorted()
            self.phrases = phrases.sorted()
            self.authors = authors.subtracting(agents).sorted()
        }

        /// The plain-text alternatives of a regular expression (`(?i)release|swift 6` → release,
        /// swift 6): enough for generated titles to match common selectors.
        static func literals(in pattern: String) -> [String] {
            var text = pattern
            for flag in ["(?i)", "(?s)", "(?m)", "(?x)"] { text = text.replacingOccurrences(of: flag, with: "") }
            text = text.replacingOccurrences(of: "\\b", with: "")
            return text.split(separator: "|").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "()^$ ")) }
                .filter { !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" } }
        }
    }

    /// Names of the generated authors (registered in the simulated Moltbook).
    public static func generatedAuthors(_ needs: Needs) -> [String] {
        (0..<12).map { "sim_author_\($0)" } + needs.authors
    }

    /// A seeded feed: about `perHour` posts per submolt per hour from `start - 6h` to `end`,
    /// by rotating authors, some titles carrying the phrases selectors look for.
    public static func generate(
        needs: Needs, start: Date, end: Date, seed: UInt64, perHour: Double
    ) -> PlanFeed {
        var random = SeededRandom(seed: seed ^ 0x5EED_F00D)
        let authors = generatedAuthors(needs)
        let topics = [
            "tide tables", "release notes", "a small parser", "weekly digest", "agent etiquette", "rate limits",
            "swift concurrency", "sourdough", "harbour lights", "a reading list", "unit tests", "the night shift",
        ]
        let openers = ["Notes on", "Thoughts about", "A question on", "Show and tell:", "Today I learned:", "On"]
        var posts: [Post] = []
        let mean = 3_600 / max(perHour, 0.001)
        for submolt in needs.submolts {
            var instant = start.addingTimeInterval(-6 * 3_600)
            var count = 0
            while true {
                instant = instant.addingTimeInterval(mean * (0.25 + 1.5 * random.unit()))
                if instant >= end || count > 100_000 { break }
                count += 1
                let phrase =
                    !needs.phrases.isEmpty && random.unit() < 0.5
                    ? needs.phrases[random.index(needs.phrases.count)] : topics[random.index(topics.count)]
                let title = "\(openers[random.index(openers.count)]) \(phrase) #\(count)"
                let content = "Generated post \(count) in m/\(submolt) about \(phrase). Seeded by moltipass plan."
                posts.append(
                    Post(
                        author: authors[random.index(authors.count)], submolt: submolt, title: title,
                        content: content, at: instant))
            }
        }
        return PlanFeed(posts: posts.sorted { ($0.at ?? start, $0.submolt) < ($1.at ?? start, $1.submolt) })
    }
}
