import Foundation

/// Where a journaled write stands.
///
/// ```
/// intent ──▶ sent ──▶ done
///   │  │       │ └──▶ failed ──▶ sent (retry, when retryAt has come; never a finished one)
///   │  │       │        └──▶ failed (a waiting retry expired or cancelled: finished)
///   │  │       └────▶ uncertain ──▶ done | failed | sent (read back: not applied)
///   │  └──▶ failed
///   └─────▶ done (read back before sending found it applied)
/// ```
/// `done` is terminal. A `sent` entry found at start-up means the process died with the
/// request in flight: the engine marks it `uncertain` and reconciles by reading back.
public enum JournalState: String, Sendable, Codable, CaseIterable {
    /// Recorded before anything was sent.
    case intent
    /// About to be sent / in flight. Durable before the request leaves.
    case sent
    /// Applied on the server.
    case done
    /// Refused or given up; retried only when `nextAttemptAt` is set.
    case failed
    /// The request may or may not have been applied: read back before anything else.
    case uncertain

    /// Whether `self → next` is a legal transition.
    public func canMove(to next: JournalState) -> Bool {
        switch (self, next) {
        case (.intent, .sent), (.intent, .done), (.intent, .failed): true
        case (.sent, .done), (.sent, .failed), (.sent, .uncertain): true
        // uncertain → uncertain: read back and still unknown, read again later (issue 33).
        case (.uncertain, .done), (.uncertain, .failed), (.uncertain, .sent), (.uncertain, .uncertain): true
        case (.failed, .sent), (.failed, .done), (.failed, .failed): true
        default: false
        }
    }
}

/// What the engine records before a write: everything needed to send or reconcile it later
/// without the recipe.
public struct JournalIntent: Sendable, Equatable {
    /// The idempotency key (unique across the store).
    public var key: String
    public var account: String
    public var recipe: String
    public var job: String
    public var occurrence: Date
    public var step: Int
    /// The action kind (`post`, `comment`, `upvote_post` …).
    public var action: String
    /// Post id, comment id, agent or submolt name, when the action has one.
    public var target: String?
    public var contentHash: String
    /// The rendered write, encoded by the engine (opaque to the store).
    public var payload: Data?
    /// Not to be attempted before this instant (a deferral decided at planning time).
    public var notBefore: Date?

    public init(
        key: String, account: String, recipe: String, job: String, occurrence: Date, step: Int, action: String,
        target: String? = nil, contentHash: String, payload: Data? = nil, notBefore: Date? = nil
    ) {
        self.key = key
        self.account = account
        self.recipe = recipe
        self.job = job
        self.occurrence = occurrence
        self.step = step
        self.action = action
        self.target = target
        self.contentHash = contentHash
        self.payload = payload
        self.notBefore = notBefore
    }
}

/// One journaled write: the intent as it was recorded, and where it stands.
///
/// The intent's fields are held once, in `intent`, and read straight through (`entry.key`,
/// `entry.action`, `entry.payload` …). Its `notBefore` is the entry's live `nextAttemptAt`: the
/// deferral recorded with the intent, then each retry time the store sets.
@dynamicMemberLookup
public struct JournalEntry: Sendable, Equatable {
    public var intent: JournalIntent
    public var state: JournalState
    /// How many times the request was sent (incremented by `markSent`).
    public var attempts: Int
    public var createdAt: Date
    public var updatedAt: Date
    /// When the request was last sent (the read-back window starts here).
    public var sentAt: Date?
    /// The created post or comment id.
    public var remoteID: String?
    public var lastError: String?

    public init(
        intent: JournalIntent, state: JournalState, attempts: Int, createdAt: Date, updatedAt: Date,
        sentAt: Date? = nil, remoteID: String? = nil, lastError: String? = nil
    ) {
        self.intent = intent
        self.state = state
        self.attempts = attempts
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.sentAt = sentAt
        self.remoteID = remoteID
        self.lastError = lastError
    }

    /// A field of the recorded intent (`entry.key` for `entry.intent.key`).
    public subscript<Value>(dynamicMember field: WritableKeyPath<JournalIntent, Value>) -> Value {
        get { intent[keyPath: field] }
        set { intent[keyPath: field] = newValue }
    }

    /// Not to be attempted before this instant; nil for no retry (failed) or no deferral.
    public var nextAttemptAt: Date? {
        get { intent.notBefore }
        set { intent.notBefore = newValue }
    }
}

extension JournalEntry {
    /// Whether the entry is finished: `done`, or `failed` with no retry time (refused for good,
    /// expired, or cancelled by the operator). A finished entry is never sent again; only a
    /// read-back that finds it applied may still mark it done.
    public var isFinished: Bool { state == .done || (state == .failed && nextAttemptAt == nil) }

    /// Whether the entry's outcome is unknown and waits for an operator's word: uncertain, and
    /// read back already without evidence either way (a time to read again is set; an entry
    /// still in flight has none). Never sent again by itself (`moltipass settle`). The one test
    /// `status --health` (`write_unknown`) and `/metrics` (`moltipass_writes_unknown`) share.
    public var awaitsOperator: Bool { state == .uncertain && nextAttemptAt != nil }
}

/// The answer of `recordIntent`: the entry under the key, and whether this call created it.
public struct RecordedIntent: Sendable, Equatable {
    public var entry: JournalEntry
    /// False when the key already existed: `entry` is then the existing entry, untouched.
    public var inserted: Bool

    public init(entry: JournalEntry, inserted: Bool) {
        self.entry = entry
        self.inserted = inserted
    }
}
