import Foundation
import MoltipassEngine

/// What a simulated horizon did: the timeline and a summary per agent and class.
/// Encoded as `moltipass plan --json` (schema in `docs/plan.md`; keys sorted, snake_case).
public struct PlanResult: Sendable, Codable, Equatable {
    /// One thing that happened (or did not) at one simulated instant.
    public struct Event: Sendable, Codable, Equatable {
        public enum Outcome: String, Sendable, Codable, CaseIterable {
            case done, deferred, skipped, failed, challenged, uncertain
        }

        /// The pass's instant.
        public var time: Date
        public var agent: String
        public var recipe: String
        public var job: String
        /// The write's kind (`post`, `comment`, `upvote_post`, …) or the engine's step (`select targets`).
        public var action: String
        /// The engine's own description of the item (`post to m/general: "Title"`), as `run --once` reports it.
        public var summary: String
        /// The limit class the action counts against (`post`, `comment`, `vote`, …; `read` for selection).
        public var limitClass: String
        /// The write's target: a post or comment id, an agent, a submolt.
        public var target: String?
        /// When the target is a post: its title and author, as the server showed them.
        public var targetTitle: String? = nil
        public var targetAuthor: String? = nil
        public var submolt: String?
        public var title: String?
        /// The first line of the content, shortened.
        public var excerpt: String?
        public var outcome: Outcome
        /// The binding limit (`post rule: post.cooldown 1 per 1800s`), the policy or the error.
        public var reason: String?
        /// Deferred: until when.
        public var until: Date?
        /// The schedule occurrence the write belongs to (nominal time).
        public var occurrence: Date?
        /// The journal's idempotency key of the write.
        public var key: String?
        /// What an answer answers (`@bob: "first words…"`): replies, messages, approvals (issue 22).
        public var inReplyTo: String? = nil
    }

    /// One agent × class line of the summary.
    public struct ClassSummary: Sendable, Codable, Equatable {
        public var agent: String
        public var limitClass: String
        public var executed = 0
        /// Distinct writes that waited at least once.
        public var deferred = 0
        public var skipped = 0
        public var failed = 0
        public var challenges = 0
        /// 429s the simulated server answered.
        public var rateLimited = 0
        /// Per limit the simulated server enforced on the class: the most requests it applied in
        /// one window of the limit, and the limit.
        public var budget: [Budget] = []
    }

    /// A post's title and author (the target of a vote or comment).
    public struct PostRef: Sendable, Codable, Equatable {
        public var title: String
        public var author: String?

        public init(title: String, author: String?) {
            self.title = title
            self.author = author
        }
    }

    /// Peak use of one limit of the simulated server over the horizon: the most requests of
    /// the class it applied within one window of the limit.
    public struct Budget: Sendable, Codable, Equatable {
        public var rule: String
        public var limit: Int
        public var periodSeconds: Double
        public var peak: Int
    }

    /// What was simulated.
    public struct Scenario: Sendable, Codable, Equatable {
        public var from: Date
        public var to: Date
        public var seed: UInt64
        public var serverProfile: String
        public var challengeRate: Double
        public var faultRate: Double
        public var newAgent: Bool
        public var feed: String
        public var feedPosts: Int
        /// Whether the simulation started from a copy of a real state file.
        public var stateCopied: Bool
        /// Why a state file that exists was not copied (`--from` in the future without
        /// `--from-state`); absent otherwise.
        public var stateSkipped: String? = nil
        /// `--enforce-duplicates` (absent when off).
        public var enforceDuplicates: Bool? = nil
        /// Other agents the simulated server played (issue 22); absent when none.
        public var simulatedAgents: Int? = nil
    }

    /// Totals from the simulated server.
    public struct Server: Sendable, Codable, Equatable {
        public var requests: Int
        public var rateLimited: Int
        public var challengesIssued: Int
        public var challengesVerified: Int
        public var faultsInjected: Int
        public var passes: Int
        /// With `--enforce-duplicates`: posts and comments the server refused as repeats, and
        /// the suspensions they earned (absent otherwise).
        public var duplicateRefusals: Int? = nil
        public var suspensions: Int? = nil
    }

    public var schemaVersion = 1
    public var scenario: Scenario
    /// The agents' time zones (the first recipe's), for display.
    public var timeZones: [String: String]
    public var events: [Event]
    public var summary: [ClassSummary]
    public var server: Server
    /// The conversations of the plan (issue 22): each inbound item answered or passed over, each
    /// DM request approved, each post's notifications marked read, in time order. Nil when the
    /// recipes answer nothing (the JSON of other plans is as before).
    public var conversations: [Conversation]? = nil

    /// One line of a conversation.
    public struct Conversation: Sendable, Codable, Equatable {
        public var time: Date
        public var agent: String
        /// `reply`, `dm`, `dm_approve` (answers), `skipped` (an item passed over), `mark_read`.
        public var kind: String
        /// Who said what (`@bob: "first words…"`), or the post whose notifications were marked read.
        public var trigger: String
        /// The answer's first words.
        public var answer: String?
        public var outcome: Event.Outcome
        public var reason: String?
    }

    /// The JSON `plan --json` prints: sorted keys, snake_case, ISO-8601 UTC times.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return try encoder.encode(self)
    }
}
