import Foundation
import MoltbookAPI
import Recipes

/// Something another agent said to ours that a `reply:` or `dm:` step may answer (issue 22),
/// with the thread it belongs to. Built by the driver from the server's record (`AccountPass+Inbox`);
/// the planning only reads it.
public struct Inbound: Sendable, Equatable {
    public var source: InboundSource
    /// The trigger's identity, answered at most once: a comment id, `post:ID` for a post that
    /// mentions the agent, or a DM message id.
    public var id: String
    /// The post it is on (replies and mentions).
    public var postID: String?
    public var postTitle: String?
    /// The post's author (the agent, for activity on its own posts) and submolt, when known.
    public var postAuthor: String?
    public var postSubmolt: String?
    /// The comment to answer under (nil: a post that mentions the agent, answered with a top-level comment).
    public var commentID: String?
    /// The DM conversation (dms).
    public var conversationID: String?
    public var author: String
    public var content: String
    public var createdAt: Date?
    /// The parent chain, root first, without the trigger: the post, then each ancestor comment
    /// (replies); the conversation's earlier messages (dms).
    public var thread: [Entry]
    /// The server shows an answer of the agent's already (a reply under the comment; a message
    /// of the agent's after it).
    public var answered: Bool
    /// The agent's own answers in the same DM conversation today (the per-conversation guard).
    public var answersToday: Int

    /// One earlier message of the thread.
    public struct Entry: Sendable, Equatable {
        public var author: String
        public var content: String
        /// Written by the agent itself.
        public var mine: Bool
        /// A comment (not the post or a DM message).
        public var isComment: Bool

        public init(author: String, content: String, mine: Bool, isComment: Bool) {
            self.author = author
            self.content = content
            self.mine = mine
            self.isComment = isComment
        }
    }

    public init(
        source: InboundSource, id: String, author: String, content: String, createdAt: Date?, thread: [Entry] = [],
        postID: String? = nil, postTitle: String? = nil, commentID: String? = nil, conversationID: String? = nil,
        answered: Bool = false, answersToday: Int = 0
    ) {
        self.source = source
        self.id = id
        self.author = author
        self.content = content
        self.createdAt = createdAt
        self.thread = thread
        self.postID = postID
        self.postTitle = postTitle
        self.commentID = commentID
        self.conversationID = conversationID
        self.answered = answered
        self.answersToday = answersToday
    }

    /// How deep the trigger is in its thread: the comments above it (0 for a top-level comment).
    public var depth: Int { thread.filter(\.isComment).count }

    /// The agent's own comments among the trigger's ancestors.
    public var mineInThread: Int { thread.filter { $0.mine && $0.isComment }.count }

    /// `@author: "first words…"`, for reports.
    public var about: String { "@\(author): \"\(PlannedWrite.excerpt(content, limit: 40))\"" }

    /// The thread as text lines (`author: text`), oldest first, ending with the trigger: what
    /// `{{ trigger.thread }}` renders and a generator reads.
    public var threadText: String {
        (thread.map { "\($0.author): \($0.content)" } + ["\(author): \(content)"]).joined(separator: "\n")
    }

    /// The template fields of `{{ trigger.* }}` (and the `post.*` a reply's post offers).
    public var templateFields: [String: String] {
        var fields = [
            "trigger.author": author, "trigger.content": content, "trigger.id": id, "trigger.kind": kind,
            "trigger.thread": threadText,
        ]
        if let postID {
            // `{{ post.* }}` of a reply: what the inbox read says of the post (empty when unknown).
            fields["id"] = postID
            fields["title"] = postTitle ?? ""
            fields["author"] = postAuthor ?? ""
            fields["submolt"] = postSubmolt ?? ""
            fields["url"] = ""
            fields["score"] = ""
        }
        return fields
    }

    /// `reply`, `mention` or `dm`.
    public var kind: String {
        switch source {
        case .replies: "reply"
        case .mentions: "mention"
        case .dms: "dm"
        }
    }
}

/// What the driver read for one `reply:` or `dm:` step: the inbound items of the step's sources,
/// the pending DM requests, and whether DMs can be used at all.
public struct InboundRead: Sendable, Equatable {
    public var items: [Inbound]
    /// Pending DM requests (dm steps): who asked, and the request's id.
    public var requests: [Request]
    /// Why direct messages cannot be used by this agent now (young agent, a server without
    /// them): the step is skipped with this reason.
    public var unavailable: String?
    /// What could not be read though DMs answered (issue 33, observation 8), in words: the
    /// step's report says "cannot read", never "nothing to answer".
    public var unreadable: [String]

    public struct Request: Sendable, Equatable {
        public var id: String
        public var from: String
        public var preview: String?

        public init(id: String, from: String, preview: String?) {
            self.id = id
            self.from = from
            self.preview = preview
        }
    }

    public init(items: [Inbound] = [], requests: [Request] = [], unavailable: String? = nil, unreadable: [String] = [])
    {
        self.items = items
        self.requests = requests
        self.unavailable = unavailable
        self.unreadable = unreadable
    }
}
