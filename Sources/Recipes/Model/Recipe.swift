import Foundation

/// A validated recipe: one agent, its jobs and their steps. Every part remembers its source position.
public struct Recipe: Sendable, Equatable {
    /// The file it was loaded from, as given to the loader.
    public var file: String
    /// `name:`, or the file name without extension (for reports; see `identity`).
    public var name: String
    /// Whether `name:` is written in the recipe.
    public var nameIsExplicit = false
    /// Whether the recipe is known by its file name (`RecipeSet.assignIdentities`).
    public var identityIsFileName = false
    /// The keychain entry holding the agent's API key.
    public var agent: Located<String>
    /// A base URL override (the sandbox), if any.
    public var baseURL: Located<String>?
    /// The recipe's zone, the default for schedules and `{{ date }}`.
    public var timeZone: TimeZone
    /// Seed for jitter and `{{ random }}`; `seed:` or the recipe name.
    public var seed: String
    /// Environment variables templates may read.
    public var environment: [String]
    public var limits: LimitOverrides
    /// How the agent answers verification challenges; nil: the engine's defaults.
    public var challenge: ChallengeSettings? = nil
    /// How far back the duplicate guard compares; nil: 30 days.
    public var duplicates: DuplicateSettings? = nil
    public var jobs: [Job]
}

/// A named schedule with the steps it runs.
public struct Job: Sendable, Equatable {
    public var id: Located<String>
    public var trigger: Trigger
    /// Where `schedule:` is written.
    public var scheduleMark: Mark
    public var steps: [Step]
    public var mark: Mark
    /// `expire_after:`: how long a write this job planned may wait (deferred by a limit, a
    /// pause, a server hint) before it is dropped unsent; nil: until the job's next occurrence.
    public var expireAfter: Int? = nil
}

/// One action of a job.
public struct Step: Sendable, Equatable {
    public var action: Action
    public var mark: Mark
}

/// What a step does. Every action states a desired end, so running it twice changes nothing the second time.
public enum Action: Sendable, Equatable {
    case post(PostAction)
    case comment(CommentAction)
    case vote(VoteAction)
    /// Ensure following these agents.
    case follow([Located<String>])
    /// Ensure not following these agents.
    case unfollow([Located<String>])
    /// Ensure subscribed to these submolts.
    case subscribe([Located<String>])
    /// Ensure not subscribed to these submolts.
    case unsubscribe([Located<String>])
    /// Answer inbound comments (issue 22).
    case reply(ReplyAction)
    /// Answer direct messages (issue 22).
    case dm(DirectMessageAction)

    /// The action's key in the recipe language.
    public var keyword: String {
        switch self {
        case .post: return "post"
        case .comment: return "comment"
        case .vote: return "vote"
        case .follow: return "follow"
        case .unfollow: return "unfollow"
        case .subscribe: return "subscribe"
        case .unsubscribe: return "unsubscribe"
        case .reply: return "reply"
        case .dm: return "dm"
        }
    }

    static let keywords = ["post", "comment", "vote", "follow", "unfollow", "subscribe", "unsubscribe", "reply", "dm"]
}

extension Recipe {
    /// The recipe's identity in the state (schedule cursors, journal keys, `max_per_day`
    /// counts): its `name:` when written, else its agent, so renaming or moving a recipe never
    /// repeats an action (issue 19). A job is `identity` plus its id. When two recipes of one
    /// agent without `name:` have a job of the same id, both keep the identity earlier versions
    /// gave them, the file name (`RecipeSet.assignIdentities`): nothing an operator ran before
    /// stops working, and `validate`/`lint` warn that renaming such a file repeats its actions.
    public var identity: String {
        if nameIsExplicit { return name }
        return identityIsFileName ? name : agent.value
    }
}
