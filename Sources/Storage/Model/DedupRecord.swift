import Foundation

/// What kind of desired-state fact a dedup record holds.
public enum DedupKind: String, Sendable, Codable, CaseIterable {
    /// A vote on a post; `value` is the direction (`up` / `down`).
    case postVote = "post_vote"
    /// A vote on a comment; `value` is the direction.
    case commentVote = "comment_vote"
    /// A comment on a post; `value` is the content hash. Several per post.
    case comment
    /// Following an agent; `value` is empty.
    case follow
    /// Subscribed to a submolt; `value` is empty.
    case subscribe
    /// Answered a trigger (issue 22): `target` is the comment id answered, or `post:ID` for a
    /// post that mentions the agent; `value` is empty. One answer per trigger, ever.
    case reply
    /// Answered a direct message: `target` is the id of the message answered; `value` is empty.
    case dm
    /// Approved a DM request: `target` is the request's (conversation's) id; `value` is empty.
    case dmApprove = "dm_approve"

    /// Whether a target holds at most one value (a vote has one direction), so recording a
    /// new value replaces the old one. Only comments keep several (one per content hash).
    public var isSingleValued: Bool {
        switch self {
        case .comment: false
        case .postVote, .commentVote, .follow, .subscribe, .reply, .dm, .dmApprove: true
        }
    }
}

/// One fact about what an account has done: voted on X, commented H on Y, follows Z.
///
/// The engine checks these before acting (a vote toggles, so voting again would undo it) and
/// records them in the same transaction as the journal's `markDone`.
public struct DedupRecord: Sendable, Equatable {
    public var account: String
    public var kind: DedupKind
    /// Post id, comment id, agent name, submolt name, `post:ID`, message id or request id.
    public var target: String
    /// Vote direction, content hash, or empty.
    public var value: String
    public var recordedAt: Date
    /// The journal entry that produced it, when there is one.
    public var journalKey: String?

    public init(
        account: String, kind: DedupKind, target: String, value: String = "", recordedAt: Date,
        journalKey: String? = nil
    ) {
        self.account = account
        self.kind = kind
        self.target = target
        self.value = value
        self.recordedAt = recordedAt
        self.journalKey = journalKey
    }
}
