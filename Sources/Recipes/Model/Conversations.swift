/// What another agent said to ours that a step may answer (issue 22): a reply on the agent's
/// posts or to its comments, a mention, or a direct message.
public enum InboundSource: String, Sendable, Equatable, CaseIterable {
    /// New comments on the agent's posts and replies to its comments.
    case replies
    /// Comments and posts that mention the agent (`/notifications` type `mention`).
    case mentions
    /// The latest unanswered message in each approved DM conversation.
    case dms
}

/// Which inbound items a `reply:` or `dm:` step answers, and how many.
public struct InboundSelector: Sendable, Equatable {
    public var sources: [InboundSource]
    /// Only these authors, if non-empty.
    public var authors: [String]
    public var excludeAuthors: [String]
    /// A regular expression the inbound text must match.
    public var contentMatches: Located<String>?
    /// Older items are skipped (seconds). Default a day: the first pass of an old account does
    /// not answer a year of comments.
    public var maxAge: Int
    /// At most this many answers per pass.
    public var maxPerRun: Int
    public var mark: Mark

    public static let defaultMaxAge = 86_400

    public init(
        sources: [InboundSource], authors: [String] = [], excludeAuthors: [String] = [],
        contentMatches: Located<String>? = nil, maxAge: Int = InboundSelector.defaultMaxAge, maxPerRun: Int,
        mark: Mark
    ) {
        self.sources = sources
        self.authors = authors
        self.excludeAuthors = excludeAuthors
        self.contentMatches = contentMatches
        self.maxAge = maxAge
        self.maxPerRun = maxPerRun
        self.mark = mark
    }
}

/// The guard against two agents answering each other for ever (docs/recipes.md, Loop guard).
public struct LoopGuard: Sendable, Equatable {
    /// A comment with this many ancestors or more (its depth in the thread) is not answered.
    public var maxDepth: Int
    /// At most this many of the agent's own comments in one thread branch (the trigger's
    /// ancestors): the agent stops answering in a branch where it already spoke that often.
    public var perThread: Int

    public static let standard = LoopGuard(maxDepth: 4, perThread: 2)

    public init(maxDepth: Int, perThread: Int) {
        self.maxDepth = maxDepth
        self.perThread = perThread
    }
}

/// Answers inbound comments (replies to the agent, mentions) in their thread, each at most once.
public struct ReplyAction: Sendable, Equatable {
    public var select: InboundSelector
    public var content: CommentText
    public var loopGuard: LoopGuard
    public var maxPerDay: Int?

    public init(select: InboundSelector, content: CommentText, loopGuard: LoopGuard = .standard, maxPerDay: Int? = nil)
    {
        self.select = select
        self.content = content
        self.loopGuard = loopGuard
        self.maxPerDay = maxPerDay
    }
}

/// Answers direct messages in approved conversations; approves pending requests only from the
/// agents named.
public struct DirectMessageAction: Sendable, Equatable {
    /// Which agents' pending requests the step approves.
    public enum Approval: Sendable, Equatable {
        /// None: a human approves requests (the default).
        case none
        /// Requests from these agents.
        case from([Located<String>])
        /// Any request (`approve_from: "*"`).
        case any
    }

    public var select: InboundSelector
    public var content: CommentText
    public var approve: Approval
    /// At most this many answers in one conversation per day (the DM loop guard).
    public var perConversation: Int
    public var maxPerDay: Int?

    public static let defaultPerConversation = 5

    public init(
        select: InboundSelector, content: CommentText, approve: Approval = .none,
        perConversation: Int = DirectMessageAction.defaultPerConversation, maxPerDay: Int? = nil
    ) {
        self.select = select
        self.content = content
        self.approve = approve
        self.perConversation = perConversation
        self.maxPerDay = maxPerDay
    }
}

extension Recipe {
    /// Whether a step of the recipe answers other agents (`reply:`, `dm:`).
    public var answers: Bool {
        jobs.contains { job in
            job.steps.contains { step in
                switch step.action {
                case .reply, .dm: true
                case .post, .comment, .vote, .follow, .unfollow, .subscribe, .unsubscribe: false
                }
            }
        }
    }
}
