import Determinism
import Foundation

/// The simulated agents' side of the sandbox: who they are, what they plan to do and when, and
/// how far each of their threads and conversations may still go.
struct SimulationState: Sendable {
    /// One thing a simulated agent will do at `at`.
    struct Event: Sendable {
        enum Kind: Sendable {
            /// A top-level comment on a real agent's post (and maybe an upvote).
            case comment(agent: String, post: String, mention: Bool, upvote: Bool, maxReplies: Int)
            /// An answer to a real agent's comment in one of the agent's threads.
            case reply(agent: String, post: String, parent: String, thread: String, mention: Bool)
            /// The recurring draw of a post that mentions a real agent.
            case mentionPost
            /// The recurring draw of a DM request to a real agent.
            case dmRequest
            /// The human on the receiving side approves a pending request.
            case approve(conversation: String)
            /// A message in an approved conversation: unprompted, or an answer.
            case message(agent: String, conversation: String, answer: Bool)
        }

        var at: Date
        var seq: Int
        var kind: Kind

        /// `comment`, `reply`, `mention_post`, `dm_request`, `dm_approve`, `dm_message`, `dm_answer`.
        var name: String {
            switch kind {
            case .comment: "comment"
            case .reply: "reply"
            case .mentionPost: "mention_post"
            case .dmRequest: "dm_request"
            case .approve: "dm_approve"
            case .message(_, _, let answer): answer ? "dm_answer" : "dm_message"
            }
        }
    }

    /// A simulated agent's part in one thread: a top-level comment of its own, or its post.
    struct Thread: Sendable {
        var agentID: String
        /// Answers it allows itself in this thread (picked when the thread starts).
        var maxReplies: Int
        var replies = 0
        /// A reply it chose not to answer ends the thread.
        var closed = false
    }

    /// A simulated agent's part in one DM conversation.
    struct Conversation: Sendable {
        var agentID: String
        var answersLeft: Int
        var followups: Int
    }

    var random: SeededRandom
    /// Simulated agents by id, in the order they were made.
    var agentIDs: [String] = []
    /// The next name to try (`SimulatedText.agentName`).
    var nameIndex = 0
    /// Scheduled events, earliest first (ties in scheduling order).
    var queue: [Event] = []
    var nextSeq = 0
    var mentionTicking = false
    var dmTicking = false
    /// Threads by key: a simulated agent's top-level comment id, or `post:ID` for its post.
    var threads: [String: Thread] = [:]
    /// The thread of each simulated comment.
    var threadOfComment: [String: String] = [:]
    var conversations: [String: Conversation] = [:]
    /// Pairs (`SandboxConversation.pairKey`) a simulated agent has already asked: never twice.
    var asked: Set<String> = []

    init(seed: UInt64) {
        random = SeededRandom(seed: seed ^ 0x5105_1A7E_D000_0022)
    }

    /// Adds an event in time order (after the events already scheduled for the same instant).
    mutating func schedule(_ kind: Event.Kind, at time: Date) {
        nextSeq += 1
        let event = Event(at: time, seq: nextSeq, kind: kind)
        var low = 0
        var high = queue.count
        while low < high {
            let middle = (low + high) / 2
            if queue[middle].at <= time { low = middle + 1 } else { high = middle }
        }
        queue.insert(event, at: low)
    }

    /// Seconds drawn log-uniformly in `min…max` (at least 1): short delays are more common.
    mutating func delay(_ minimum: Int, _ maximum: Int) -> TimeInterval {
        let low = Double(max(1, minimum))
        let high = Double(max(1, maximum))
        guard high > low else { return low }
        return exp(log(low) + random.unit() * (log(high) - log(low)))
    }

    /// The wait until the next event of a Poisson process with `perDay` events a day.
    mutating func interval(perDay: Double) -> TimeInterval {
        max(1, -log(1 - random.unit()) * 86_400 / perDay)
    }

    /// A uniform count in `0…maximum`, or `1…maximum` when `atLeastOne` (0 when `maximum` is 0).
    mutating func count(upTo maximum: Int, atLeastOne: Bool) -> Int {
        guard maximum > 0 else { return 0 }
        return random.int(in: (atLeastOne ? 1 : 0)...maximum)
    }
}
