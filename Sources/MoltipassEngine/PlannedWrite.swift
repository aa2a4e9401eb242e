import Crypto
import Foundation
import MoltbookAPI
import RateLimiting

/// One concrete write, fully rendered: what the journal records as intent before sending,
/// so a later run can send (or reconcile) it without the recipe.
public struct PlannedWrite: Sendable, Codable, Equatable {
    public enum Kind: String, Sendable, Codable, CaseIterable {
        case post
        case comment
        case upvotePost = "upvote_post"
        case downvotePost = "downvote_post"
        case upvoteComment = "upvote_comment"
        case downvoteComment = "downvote_comment"
        case follow
        case unfollow
        case subscribe
        case unsubscribe
        /// A comment answering an inbound comment or mention (issue 22): `target` is the trigger
        /// (a comment id, or `post:ID` for a post that mentions the agent), `post` the post it is
        /// on, `parentID` the comment answered. Answered at most once per trigger, ever.
        case reply
        /// A direct message answering the latest message of a conversation: `target` is that
        /// message's id, `conversation` the conversation.
        case directMessage = "dm"
        /// Approving a pending DM request a recipe names (`approve_from:`): `target` is the
        /// conversation (request) id.
        case approveRequest = "dm_approve"
    }

    public var kind: Kind
    /// Post id (comment, votes on posts), comment id (comment votes), agent name, or submolt name.
    public var target: String?
    public var submolt: String?
    public var title: String?
    public var content: String?
    public var url: String?
    /// The comment replied to.
    public var parentID: String?
    /// A comment on a target a selector picked: one per target, whatever its text. The server
    /// check before sending then looks for any comment of the agent there, not only this text.
    public var oncePerTarget: Bool
    /// The content-queue item a post took (`QueueLedger.fingerprint`), so an expired or
    /// cancelled post gives it back to the queue. Not part of `contentHash`.
    public var queueItem: String?
    /// The post a reply is on (`reply`).
    public var post: String?
    /// The DM conversation a message goes to (`dm`).
    public var conversation: String?
    /// What a reply or message answers, in words (`@bob: "first words…"`), for reports and
    /// `plan`. Not part of `contentHash`.
    public var about: String?

    public init(
        kind: Kind, target: String? = nil, submolt: String? = nil, title: String? = nil, content: String? = nil,
        url: String? = nil, parentID: String? = nil, oncePerTarget: Bool = false
    ) {
        self.oncePerTarget = oncePerTarget
        self.kind = kind
        self.target = target
        self.submolt = submolt
        self.title = title
        self.content = content
        self.url = url
        self.parentID = parentID
    }

    enum CodingKeys: String, CodingKey {
        case kind, target, submolt, title, content, url, parentID, oncePerTarget, queueItem, post, conversation,
            about
    }

    /// `Codable`'s shape; `oncePerTarget` is absent from journals written before it existed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            kind: try container.decode(Kind.self, forKey: .kind),
            target: try container.decodeIfPresent(String.self, forKey: .target),
            submolt: try container.decodeIfPresent(String.self, forKey: .submolt),
            title: try container.decodeIfPresent(String.self, forKey: .title),
            content: try container.decodeIfPresent(String.self, forKey: .content),
            url: try container.decodeIfPresent(String.self, forKey: .url),
            parentID: try container.decodeIfPresent(String.self, forKey: .parentID),
            oncePerTarget: try container.decodeIfPresent(Bool.self, forKey: .oncePerTarget) ?? false)
        queueItem = try container.decodeIfPresent(String.self, forKey: .queueItem)
        post = try container.decodeIfPresent(String.self, forKey: .post)
        conversation = try container.decodeIfPresent(String.self, forKey: .conversation)
        about = try container.decodeIfPresent(String.self, forKey: .about)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(target, forKey: .target)
        try container.encodeIfPresent(submolt, forKey: .submolt)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encodeIfPresent(content, forKey: .content)
        try container.encodeIfPresent(url, forKey: .url)
        try container.encodeIfPresent(parentID, forKey: .parentID)
        if oncePerTarget { try container.encode(true, forKey: .oncePerTarget) }
        try container.encodeIfPresent(queueItem, forKey: .queueItem)
        try container.encodeIfPresent(post, forKey: .post)
        try container.encodeIfPresent(conversation, forKey: .conversation)
        try container.encodeIfPresent(about, forKey: .about)
    }

    /// The action's own limit class (every write also counts as `.write`).
    public var limitClass: LimitClass {
        switch kind {
        case .post: .post
        case .comment, .reply: .comment
        case .directMessage: .dm
        case .approveRequest: .write
        case .upvotePost, .downvotePost, .upvoteComment, .downvoteComment: .vote
        case .follow, .unfollow: .follow
        case .subscribe, .unsubscribe: .subscribe
        }
    }

    /// Whether a lost response may be followed by sending again after reading back. Votes
    /// toggle, so a vote whose outcome is unknown is never sent again.
    public var isVote: Bool { limitClass == .vote }

    /// The vote state a vote write leaves on its target; nil for other writes.
    ///
    /// The switches over `Kind` in the engine list every kind (no `default:`): a new action
    /// makes the compiler name each place that must decide about it (docs/architecture.md,
    /// "Adding an action").
    public var desiredVote: VoteState? {
        switch kind {
        case .upvotePost, .upvoteComment: .up
        case .downvotePost, .downvoteComment: .down
        case .post, .comment, .follow, .unfollow, .subscribe, .unsubscribe, .reply, .directMessage, .approveRequest:
            nil
        }
    }

    /// SHA-256 over the rendered fields, hex: part of the idempotency key.
    public var contentHash: String {
        // `post` and `conversation` only when set: hashes (and so keys) of older kinds stay as they were.
        let fields =
            [kind.rawValue, target, submolt, title, content, url, parentID] + [post, conversation].filter { $0 != nil }
        let text = fields.map { $0 ?? "∅" }.joined(separator: "\u{1F}")
        return SHA256.hash(data: Data(text.utf8)).hexString
    }

    /// A short human description for logs and reports (never the full content).
    public var summary: String {
        switch kind {
        case .post: "post to m/\(submolt ?? "?"): \"\(Self.excerpt(title ?? ""))\""
        case .comment: "comment on \(target ?? "?"): \"\(Self.excerpt(content ?? ""))\""
        case .upvotePost: "upvote post \(target ?? "?")"
        case .downvotePost: "downvote post \(target ?? "?")"
        case .upvoteComment: "upvote comment \(target ?? "?")"
        case .downvoteComment: "downvote comment \(target ?? "?")"
        case .follow: "follow \(target ?? "?")"
        case .unfollow: "unfollow \(target ?? "?")"
        case .subscribe: "subscribe m/\(target ?? "?")"
        case .unsubscribe: "unsubscribe m/\(target ?? "?")"
        case .reply: "reply to \(about ?? target ?? "?"): \"\(Self.excerpt(content ?? ""))\""
        case .directMessage: "dm \(about ?? conversation ?? "?"): \"\(Self.excerpt(content ?? ""))\""
        case .approveRequest: "approve DM request \(about ?? target ?? "?")"
        }
    }

    package static func excerpt(_ text: String, limit: Int = 48) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.count > limit ? String(line.prefix(limit)) + "…" : line
    }

    /// The idempotency key: recipe, job, occurrence, step, target and content hash, hashed.
    /// The same occurrence of the same step always yields the same key, so a crash and a
    /// re-run find the journal entry instead of writing twice.
    public static func idempotencyKey(
        recipe: String, job: String, occurrence: Date, step: Int, write: PlannedWrite
    ) -> String {
        idempotencyKey(
            recipe: recipe, job: job, occurrence: occurrence, step: step, target: write.target,
            contentHash: write.contentHash)
    }

    /// The same key from the write's target and an already computed `contentHash`.
    public static func idempotencyKey(
        recipe: String, job: String, occurrence: Date, step: Int, target: String?, contentHash: String
    ) -> String {
        let text =
            "v1|\(recipe)|\(job)|\(Int64(occurrence.timeIntervalSince1970))|\(step)|"
            + "\(target ?? "")|\(contentHash)"
        return SHA256.hash(data: Data(text.utf8)).prefix(16).hexString
    }
}

extension PlannedWrite {
    /// The journal's stored form: the `Codable` JSON shape (`kind`, then each field present),
    /// written by `JSONWriter` and read through `JSONValue`. `JSONEncoder`/`JSONDecoder` took
    /// ~20 µs a payload, and the engine writes one per planned write and reads one per pending
    /// entry per pass. Journals written by either way read the same (tested both ways).
    public var payload: Data {
        var fields: [String: JSONValue] = ["kind": .string(kind.rawValue)]
        for (key, value) in [
            ("target", target), ("submolt", submolt), ("title", title), ("content", content), ("url", url),
            ("parentID", parentID), ("post", post), ("conversation", conversation), ("about", about),
        ] {
            if let value { fields[key] = .string(value) }
        }
        if oncePerTarget { fields["oncePerTarget"] = .bool(true) }
        if let queueItem { fields["queueItem"] = .string(queueItem) }
        return JSONValue.object(fields).encoded()
    }

    /// Reads a stored payload; nil when it is not one (an unknown kind, a field of another type).
    public init?(payload: Data) {
        guard let json = try? JSONValue.parse(payload), let fields = json.object,
            case .string(let name)? = fields["kind"], let kind = Kind(rawValue: name)
        else { return nil }
        func text(_ key: String) -> String?? {
            switch fields[key] {
            case nil, .null?: .some(nil)
            case .string(let value)?: .some(value)
            default: nil
            }
        }
        guard let target = text("target"), let submolt = text("submolt"), let title = text("title"),
            let content = text("content"), let url = text("url"), let parentID = text("parentID"),
            let queueItem = text("queueItem"), let post = text("post"), let conversation = text("conversation"),
            let about = text("about")
        else { return nil }
        let once: Bool
        switch fields["oncePerTarget"] {
        case nil, .null?: once = false
        case .bool(let value)?: once = value
        default: return nil
        }
        self.init(
            kind: kind, target: target, submolt: submolt, title: title, content: content, url: url, parentID: parentID,
            oncePerTarget: once)
        self.queueItem = queueItem
        self.post = post
        self.conversation = conversation
        self.about = about
    }
}

extension PlannedWrite.Kind {
    /// A follow or subscription (or their undoing): a 409 means the state is already so.
    public var isMembership: Bool {
        switch self {
        case .follow, .unfollow, .subscribe, .unsubscribe: true
        case .post, .comment, .upvotePost, .downvotePost, .upvoteComment, .downvoteComment, .reply, .directMessage,
            .approveRequest:
            false
        }
    }
}

extension PlannedWrite.Kind {
    /// A post or comment: text the duplicate guard fingerprints.
    public var carriesText: Bool {
        switch self {
        case .post, .comment, .reply: true
        // A direct message is private to one conversation: Moltbook's duplicate-content rule is
        // about public posts and comments, and an agent may well say "thanks" in two chats.
        case .upvotePost, .downvotePost, .upvoteComment, .downvoteComment, .follow, .unfollow, .subscribe,
            .unsubscribe, .directMessage, .approveRequest:
            false
        }
    }
}

extension PlannedWrite.Kind {
    /// Whether the target is a post id (a comment, a vote on a post): `plan` names such targets
    /// by title and author.
    public var targetsPost: Bool {
        switch self {
        case .comment, .upvotePost, .downvotePost: true
        case .post, .upvoteComment, .downvoteComment, .follow, .unfollow, .subscribe, .unsubscribe, .reply,
            .directMessage, .approveRequest:
            false
        }
    }

    /// Whether the server's record is read before sending (`AccountPass.serverCheck`): the
    /// post's comments before a comment, the post's vote field before a post vote. Not comment
    /// votes (no read shows the agent's vote on one comment by its id alone), not posts (read
    /// back only after a lost answer), not memberships (idempotent on the server).
    public var checksServerFirst: Bool {
        switch self {
        // A reply: the post's comments (an answer of the agent's under the trigger is the answer);
        // a message: the conversation (the agent's message after the trigger is the answer).
        case .comment, .upvotePost, .downvotePost, .reply, .directMessage: true
        case .post, .upvoteComment, .downvoteComment, .follow, .unfollow, .subscribe, .unsubscribe, .approveRequest:
            false
        }
    }
}
