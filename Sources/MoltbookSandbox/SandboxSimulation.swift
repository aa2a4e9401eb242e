import Foundation

/// Simulated other agents (`SandboxConfig.simulation`, JSON key `simulation`): seeded, driven by
/// the model's clock, so that `plan`, tests and demos see replies, mentions and direct messages.
///
/// With `agents` above 0 the sandbox registers that many claimed agents named `sim-<word>`, older
/// than a day, and lets them react to the other ("real") agents: comments on their posts, replies
/// to their replies, mentions, DM requests and messages. Events are scheduled when their cause
/// happens and applied in time order, each dated at its scheduled instant, whenever the model
/// handles a request at or after that instant: the world does not depend on how often anyone
/// polls. Every stream is finite: a simulated agent never acts on simulated content, and answers
/// a real agent at most a bounded number of times per thread and per conversation.
/// `docs/sandbox.md` ("Simulated agents") describes each knob.
public struct SandboxSimulation: Sendable, Codable, Equatable {
    /// Number of simulated agents; 0 switches the simulation off.
    public var agents: Int
    /// Names of the real agents the simulated ones engage with; empty: every agent that is not simulated.
    public var targets: [String]
    /// Top-level comments on each new post of a real agent, drawn uniformly in `min…max`
    /// (capped by `agents`; each by a different simulated agent).
    public var minCommentsPerPost: Int
    public var maxCommentsPerPost: Int
    /// Delay of a simulated comment after the post it answers (log-uniform in `min…max`).
    public var commentDelayMinSeconds: Int
    public var commentDelayMaxSeconds: Int
    /// Probability that a simulated agent answers a real agent's reply to it, the first time in a
    /// thread; each later answer in the same thread is `reply_decay` times less likely. A reply not
    /// answered ends the thread for that simulated agent.
    public var replyProbability: Double
    public var replyDecay: Double
    /// Each simulated agent picks, per thread, a number of answers in `1…max_reply_depth` and
    /// never answers more in that thread (0: it never answers).
    public var maxReplyDepth: Int
    /// Delay of an answer (to a reply, or to a direct message) after what it answers (log-uniform).
    public var replyDelayMinSeconds: Int
    public var replyDelayMaxSeconds: Int
    /// Probability that a simulated comment starts with `@name` of the agent it answers.
    public var mentionProbability: Double
    /// Posts per simulated day, at random (Poisson) instants, in which a simulated agent mentions a
    /// real agent (a `mention` notification; a real comment on that post may be answered, as a reply).
    public var mentionPostsPerDay: Double
    /// Probability that a simulated commenter also upvotes the post (a `post_upvote` notification).
    public var upvoteProbability: Double
    /// DM requests per simulated day from simulated agents to real agents, at random instants.
    public var dmRequestsPerDay: Double
    /// Share of requests involving a simulated agent that its counterpart's human approves after
    /// `approve_delay_min…max_seconds` (both ways: a real agent's request to a simulated one too);
    /// the others stay pending until the agent approves them or `POST /_sandbox/dm/requests/ID/approve`.
    public var dmAutoApproveFraction: Double
    public var approveDelayMinSeconds: Int
    public var approveDelayMaxSeconds: Int
    /// Unprompted messages a simulated agent sends in a conversation once approved: drawn in
    /// `0…dm_followups_max`, each after the approval by a comment delay.
    public var dmFollowupsMax: Int
    /// Probability that a simulated agent answers a real agent's message; it answers at most a
    /// number drawn in `1…dm_max_answers` per conversation, and a message not answered ends it.
    public var dmAnswerProbability: Double
    public var dmMaxAnswers: Int

    public init(
        agents: Int = 0,
        targets: [String] = [],
        minCommentsPerPost: Int = 1,
        maxCommentsPerPost: Int = 3,
        commentDelayMinSeconds: Int = 120,
        commentDelayMaxSeconds: Int = 3 * 3_600,
        replyProbability: Double = 0.6,
        replyDecay: Double = 0.5,
        maxReplyDepth: Int = 3,
        replyDelayMinSeconds: Int = 60,
        replyDelayMaxSeconds: Int = 3_600,
        mentionProbability: Double = 0.2,
        mentionPostsPerDay: Double = 1,
        upvoteProbability: Double = 0.5,
        dmRequestsPerDay: Double = 2,
        dmAutoApproveFraction: Double = 0.5,
        approveDelayMinSeconds: Int = 600,
        approveDelayMaxSeconds: Int = 2 * 3_600,
        dmFollowupsMax: Int = 2,
        dmAnswerProbability: Double = 0.7,
        dmMaxAnswers: Int = 3
    ) {
        self.agents = agents
        self.targets = targets
        self.minCommentsPerPost = minCommentsPerPost
        self.maxCommentsPerPost = maxCommentsPerPost
        self.commentDelayMinSeconds = commentDelayMinSeconds
        self.commentDelayMaxSeconds = commentDelayMaxSeconds
        self.replyProbability = replyProbability
        self.replyDecay = replyDecay
        self.maxReplyDepth = maxReplyDepth
        self.replyDelayMinSeconds = replyDelayMinSeconds
        self.replyDelayMaxSeconds = replyDelayMaxSeconds
        self.mentionProbability = mentionProbability
        self.mentionPostsPerDay = mentionPostsPerDay
        self.upvoteProbability = upvoteProbability
        self.dmRequestsPerDay = dmRequestsPerDay
        self.dmAutoApproveFraction = dmAutoApproveFraction
        self.approveDelayMinSeconds = approveDelayMinSeconds
        self.approveDelayMaxSeconds = approveDelayMaxSeconds
        self.dmFollowupsMax = dmFollowupsMax
        self.dmAnswerProbability = dmAnswerProbability
        self.dmMaxAnswers = dmMaxAnswers
    }

    /// Whether simulated agents exist.
    public var isOn: Bool { agents > 0 }

    /// What is wrong with the values, or nil: counts and delays are not negative, ranges are
    /// ordered, probabilities lie in 0…1, rates are finite.
    public var problem: String? {
        let counts: [(String, Int)] = [
            ("agents", agents), ("min_comments_per_post", minCommentsPerPost),
            ("max_reply_depth", maxReplyDepth), ("dm_followups_max", dmFollowupsMax),
            ("dm_max_answers", dmMaxAnswers), ("comment_delay_min_seconds", commentDelayMinSeconds),
            ("reply_delay_min_seconds", replyDelayMinSeconds), ("approve_delay_min_seconds", approveDelayMinSeconds),
        ]
        if let (name, _) = counts.first(where: { $0.1 < 0 }) { return "\(name) must not be negative" }
        if agents > 1_000 { return "agents is at most 1000" }
        let ranges: [(String, String, Int, Int)] = [
            ("min_comments_per_post", "max_comments_per_post", minCommentsPerPost, maxCommentsPerPost),
            ("comment_delay_min_seconds", "comment_delay_max_seconds", commentDelayMinSeconds, commentDelayMaxSeconds),
            ("reply_delay_min_seconds", "reply_delay_max_seconds", replyDelayMinSeconds, replyDelayMaxSeconds),
            ("approve_delay_min_seconds", "approve_delay_max_seconds", approveDelayMinSeconds, approveDelayMaxSeconds),
        ]
        if let (low, high, _, _) = ranges.first(where: { $0.2 > $0.3 }) { return "\(low) must not exceed \(high)" }
        let probabilities: [(String, Double)] = [
            ("reply_probability", replyProbability), ("reply_decay", replyDecay),
            ("mention_probability", mentionProbability), ("upvote_probability", upvoteProbability),
            ("dm_auto_approve_fraction", dmAutoApproveFraction), ("dm_answer_probability", dmAnswerProbability),
        ]
        if let (name, _) = probabilities.first(where: { !(0...1).contains($0.1) }) {
            return "\(name) must lie between 0 and 1"
        }
        let rates: [(String, Double)] = [
            ("mention_posts_per_day", mentionPostsPerDay), ("dm_requests_per_day", dmRequestsPerDay),
        ]
        if let (name, _) = rates.first(where: { !$0.1.isFinite || $0.1 < 0 || $0.1 > 10_000 }) {
            return "\(name) must lie between 0 and 10000"
        }
        return nil
    }

    enum CodingKeys: String, CodingKey {
        case agents, targets
        case minCommentsPerPost = "min_comments_per_post"
        case maxCommentsPerPost = "max_comments_per_post"
        case commentDelayMinSeconds = "comment_delay_min_seconds"
        case commentDelayMaxSeconds = "comment_delay_max_seconds"
        case replyProbability = "reply_probability"
        case replyDecay = "reply_decay"
        case maxReplyDepth = "max_reply_depth"
        case replyDelayMinSeconds = "reply_delay_min_seconds"
        case replyDelayMaxSeconds = "reply_delay_max_seconds"
        case mentionProbability = "mention_probability"
        case mentionPostsPerDay = "mention_posts_per_day"
        case upvoteProbability = "upvote_probability"
        case dmRequestsPerDay = "dm_requests_per_day"
        case dmAutoApproveFraction = "dm_auto_approve_fraction"
        case approveDelayMinSeconds = "approve_delay_min_seconds"
        case approveDelayMaxSeconds = "approve_delay_max_seconds"
        case dmFollowupsMax = "dm_followups_max"
        case dmAnswerProbability = "dm_answer_probability"
        case dmMaxAnswers = "dm_max_answers"
    }

    /// Every key optional (defaults above); values that make no sense are a decoding error naming the key.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = SandboxSimulation()
        agents = try c.value(.agents, default: d.agents)
        targets = try c.value(.targets, default: d.targets)
        minCommentsPerPost = try c.value(.minCommentsPerPost, default: d.minCommentsPerPost)
        maxCommentsPerPost = try c.value(.maxCommentsPerPost, default: d.maxCommentsPerPost)
        commentDelayMinSeconds = try c.value(.commentDelayMinSeconds, default: d.commentDelayMinSeconds)
        commentDelayMaxSeconds = try c.value(.commentDelayMaxSeconds, default: d.commentDelayMaxSeconds)
        replyProbability = try c.value(.replyProbability, default: d.replyProbability)
        replyDecay = try c.value(.replyDecay, default: d.replyDecay)
        maxReplyDepth = try c.value(.maxReplyDepth, default: d.maxReplyDepth)
        replyDelayMinSeconds = try c.value(.replyDelayMinSeconds, default: d.replyDelayMinSeconds)
        replyDelayMaxSeconds = try c.value(.replyDelayMaxSeconds, default: d.replyDelayMaxSeconds)
        mentionProbability = try c.value(.mentionProbability, default: d.mentionProbability)
        mentionPostsPerDay = try c.value(.mentionPostsPerDay, default: d.mentionPostsPerDay)
        upvoteProbability = try c.value(.upvoteProbability, default: d.upvoteProbability)
        dmRequestsPerDay = try c.value(.dmRequestsPerDay, default: d.dmRequestsPerDay)
        dmAutoApproveFraction = try c.value(.dmAutoApproveFraction, default: d.dmAutoApproveFraction)
        approveDelayMinSeconds = try c.value(.approveDelayMinSeconds, default: d.approveDelayMinSeconds)
        approveDelayMaxSeconds = try c.value(.approveDelayMaxSeconds, default: d.approveDelayMaxSeconds)
        dmFollowupsMax = try c.value(.dmFollowupsMax, default: d.dmFollowupsMax)
        dmAnswerProbability = try c.value(.dmAnswerProbability, default: d.dmAnswerProbability)
        dmMaxAnswers = try c.value(.dmMaxAnswers, default: d.dmMaxAnswers)
        if let problem {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: problem))
        }
    }
}
