/// What an action of a pass report was, as the `action` label: a closed set, read from the start
/// of the report line (`post to m/general: "…"`, `upvote post ID`, `verify`), never the rest of it
/// (ids, titles, names).
public enum ActionLabel: String, Sendable, Equatable, CaseIterable {
    case post
    case comment
    case reply
    case dm
    case dmApprove = "dm_approve"
    case vote
    case follow
    case unfollow
    case subscribe
    case unsubscribe
    case verify
    case markRead = "mark_read"
    /// An occurrence of a schedule skipped as a whole.
    case occurrence
    /// Anything else (a target selection, an answer skipped before its kind was known).
    case other

    /// The label of a report line's action text, by its first word.
    public init(reportAction text: String) {
        let word = text.prefix { $0 != " " && $0 != ":" }
        switch word {
        case "post": self = .post
        case "comment": self = .comment
        case "reply": self = .reply
        case "dm": self = .dm
        case "approve": self = .dmApprove
        case "vote", "upvote", "downvote": self = .vote
        case "follow": self = .follow
        case "unfollow": self = .unfollow
        case "subscribe": self = .subscribe
        case "unsubscribe": self = .unsubscribe
        case "verify": self = .verify
        case "mark": self = .markRead
        case "occurrence", "occurrences": self = .occurrence
        default: self = .other
        }
    }
}

/// How an action ended, as the `outcome` label.
public enum OutcomeLabel: String, Sendable, Equatable, CaseIterable {
    case done
    case failed
    case uncertain
    case skipped
    /// Not sent yet: deferred (a limit, a pause, an earlier write) or awaiting verification.
    case held
}

/// What became of a verification challenge, as the `result` label.
public enum ChallengeResultLabel: String, Sendable, Equatable, CaseIterable {
    /// A write was answered with a challenge.
    case received
    /// The answer was accepted.
    case solved
    /// Declined, wrong, expired or out of attempts: the agent pauses.
    case failed
    /// The answer was lost on the way: its fate is unknown.
    case uncertain
    /// The server did not know the code: nothing was owed.
    case dropped
}

/// An HTTP status as the `status_class` label: `2xx` … `5xx`, or `error` when no answer came.
public enum StatusClassLabel: String, Sendable, Equatable, CaseIterable {
    case informational = "1xx"
    case success = "2xx"
    case redirection = "3xx"
    case clientError = "4xx"
    case serverError = "5xx"
    case error

    public init(status: Int?) {
        switch status {
        case (100...199)?: self = .informational
        case (200...299)?: self = .success
        case (300...399)?: self = .redirection
        case (400...499)?: self = .clientError
        case (500...599)?: self = .serverError
        default: self = .error
        }
    }
}
