import Foundation
import MoltbookAPI

/// Asks the server what it holds after a write whose outcome was lost. The server is the
/// record: the journal can be lost, copied or stale, and an operator may act by hand.
///
/// A verdict carries its evidence (issue 33). *Applied* when the write is found; *not applied*
/// only when what was read covers the question — a listing complete for the interval since the
/// request left (ordered newest first and read back past that instant, or ended in so many
/// words), a listing of the agent's own content that reaches back past it, or an exact lookup —
/// and *unknown* otherwise. "Absent from the first page" is unknown, and an unknown write is
/// never sent again automatically (`DrainMachine.handle(verdict:…)`).
///
/// - Posts: the global feed, newest first (its first page, then the agent's profile, then more
///   pages, up to `maxPages`), for one by the agent with the same title (and content).
/// - Comments and replies: the post's comments (embedded in `GET /posts/ID`, then
///   `GET /posts/ID/comments` paged) for one by the agent under the same parent.
/// - Direct messages: the conversation, which covers the question only when it shows the
///   message answered (everything after it is then in view).
/// - Votes: the post's own vote field (`your_vote`, `userVote`, `user_vote`), an exact lookup;
///   a server that gives none leaves the outcome unknown (a second vote would take it back).
/// - Approvals: the pending requests (still there: not applied).
/// - Follow / subscribe and their inverses are idempotent on the server: sending again is safe.
///
/// "By the agent" means by its identity on the server (`AgentIdentity`), never the keychain
/// entry's name.
public enum Reconciler {
    public enum Verdict: Sendable, Equatable {
        /// Applied; the remote id when one could be found.
        case applied(remoteID: String?)
        /// Certainly not applied, and `evidence` says how that is known: safe to send.
        case notApplied(evidence: String)
        /// What could be read does not answer the question (`reason`): never sent again
        /// automatically; read again later, or settled by an operator.
        case unknown(reason: String)
    }

    /// Pages of a listing read at most while looking for one write (each is a read request).
    public static let maxPages = 10
    /// Items asked for per page.
    static let pageSize = 50
    /// Server clocks and ours differ: a copy "created" this long before the intent still counts,
    /// and a listing must reach this far before the intent to cover it.
    static let clockSlack: TimeInterval = 300

    public static func reconcile(
        _ write: PlannedWrite, agent: AgentIdentity, intentAt: Date, client: MoltbookClient
    ) async throws(APIError) -> Verdict {
        let earliest = intentAt.addingTimeInterval(-clockSlack)
        switch write.kind {
        case .post:
            return try await post(write, agent: agent, earliest: earliest, client: client)
        case .comment:
            return try await comment(
                on: write.target ?? "", parentID: write.parentID, content: write.content, agent: agent,
                earliest: earliest, client: client)
        case .reply:
            return try await comment(
                on: write.post ?? "", parentID: write.parentID, content: write.parentID == nil ? write.content : nil,
                agent: agent, earliest: earliest, client: client)
        case .follow, .unfollow, .subscribe, .unsubscribe:
            return .notApplied(evidence: "idempotent on the server: sending it again cannot do it twice")
        case .upvotePost, .downvotePost:
            switch try await postVote(write.target ?? "", client: client) {
            case nil:
                return .unknown(reason: "the server does not show the agent's vote on the post")
            case let state? where state == write.desiredVote:
                return .applied(remoteID: nil)
            case let state?:
                return .notApplied(evidence: "the post shows the agent's vote as \(state)")
            }
        case .upvoteComment, .downvoteComment:
            return .unknown(reason: "no server shows the agent's vote on a comment")
        case .directMessage:
            return try await message(
                after: write.target ?? "", in: write.conversation ?? "", agent: agent, client: client)
        case .approveRequest:
            // Still pending: not applied. Gone from the pending requests: approved (or withdrawn,
            // which a second approval cannot change either).
            let pending = try await client.dmRequests().value
            return pending.contains { $0.id == write.target }
                ? .notApplied(evidence: "the request is still among the pending requests")
                : .applied(remoteID: nil)
        }
    }

    // MARK: Strategies

    static func post(_ write: PlannedWrite, agent: AgentIdentity, earliest: Date, client: MoltbookClient)
        async throws(APIError) -> Verdict
    {
        let isCopy: (Post) -> Bool = { post in
            agent.isSelf(post.author) && post.title == write.title
                && (write.content == nil || post.content == nil || post.content == write.content)
                && (post.createdAt.map { $0 >= earliest } ?? true)
        }
        var feed = Listing<Post>(since: earliest, id: { $0.id }, createdAt: { $0.createdAt })
        let first = try await client.posts(sort: .new, limit: pageSize).value
        if let found = feed.read(first, matching: isCopy) { return .applied(remoteID: found.id) }
        // Pending (challenged) posts are hidden from feeds; the agent's own listing is a second
        // look, and evidence of its own when it reaches back past the send.
        do {
            let profile = try await client.profile(name: agent.name).value
            if let own = profile.recentPosts.first(where: { $0.title == write.title }) {
                return .applied(remoteID: own.id)
            }
            var own = Listing<Post>(since: earliest, id: { $0.id }, createdAt: { $0.createdAt })
            _ = own.read(Page(items: profile.recentPosts, hasMore: false, nextCursor: nil), matching: { _ in false })
            if own.covers {
                return .notApplied(evidence: "the agent's own posts, listed back past the send, do not hold it")
            }
        } catch  where [.notFound, .methodNotAllowed].contains(error.code) {
            // A server without profiles: the feed is the only look there is.
        }
        while let next = feed.nextRequest {
            guard feed.pages < maxPages else { break }
            let page = try await client.posts(
                sort: .new, limit: pageSize, cursor: next.cursor, offset: next.offset
            ).value
            if let found = feed.read(page, matching: isCopy) { return .applied(remoteID: found.id) }
        }
        return feed.verdict(what: "the feed")
    }

    static func comment(
        on postID: String, parentID: String?, content: String?, agent: AgentIdentity, earliest: Date,
        client: MoltbookClient
    ) async throws(APIError) -> Verdict {
        let isCopy: (Comment) -> Bool = { comment in
            agent.isSelf(comment.author) && comment.parentID == parentID
                && (content == nil || comment.content == content)
        }
        let detail = try await client.post(id: postID).value
        if let found = detail.comments.flatMap(\.flattened).first(where: isCopy) {
            return .applied(remoteID: found.id)
        }
        // Top-level comments are listed newest first; a reply sits in its thread, wherever that
        // thread's first comment falls, so only a listing that ended covers a reply.
        let topLevel = parentID == nil
        var listing = Listing<Comment>(since: earliest, id: { $0.id }, createdAt: { topLevel ? $0.createdAt : nil })
        var request: Listing<Comment>.Request? = .init(cursor: nil, offset: nil)
        while let next = request, listing.pages < maxPages {
            let page = try await client.comments(
                postID: postID, sort: .new, limit: 100, cursor: next.cursor, offset: next.offset
            ).value
            if let found = listing.read(page, matching: { $0.flattened.contains(where: isCopy) }) {
                return .applied(remoteID: found.flattened.first(where: isCopy)?.id)
            }
            request = listing.nextRequest
        }
        return listing.verdict(what: "the post's comments")
    }

    static func message(after triggerID: String, in conversation: String, agent: AgentIdentity, client: MoltbookClient)
        async throws(APIError) -> Verdict
    {
        let messages = try await client.dmThread(id: conversation).value.messages
        guard let index = messages.firstIndex(where: { $0.id == triggerID }) else {
            return .unknown(reason: "the conversation as the server shows it no longer holds the message answered")
        }
        if let own = messages[(index + 1)...].first(where: { isOwn($0, agent: agent) }) {
            return .applied(remoteID: own.id)
        }
        return .notApplied(evidence: "the conversation shows the message answered and nothing of the agent's after it")
    }

    // MARK: Server-record lookups (before a first send)

    /// The agent's answer to a reply's trigger: any comment of its under the comment answered
    /// (whatever its text: one answer per trigger), or, for a post that mentions the agent, a
    /// top-level comment with the same text.
    public static func ownReply(_ write: PlannedWrite, agent: AgentIdentity, client: MoltbookClient)
        async throws(APIError) -> Comment?
    {
        try await ownComment(
            on: write.post ?? "", parentID: write.parentID, content: write.parentID == nil ? write.content : nil,
            agent: agent, client: client)
    }

    /// A message of the agent's in `conversation` after the message `triggerID`, if the server
    /// shows one. Reading a conversation marks it read (the server's choice, §1.9).
    public static func ownMessage(
        after triggerID: String, in conversation: String, agent: AgentIdentity, client: MoltbookClient
    ) async throws(APIError) -> DMMessage? {
        let messages = try await client.dmThread(id: conversation).value.messages
        guard let index = messages.firstIndex(where: { $0.id == triggerID }) else { return nil }
        return messages[(index + 1)...].first { isOwn($0, agent: agent) }
    }

    static func isOwn(_ message: DMMessage, agent: AgentIdentity) -> Bool {
        message.senderName.map { agent.isSelf(AuthorRef(id: nil, name: $0)) } ?? false
    }

    /// The agent's comment on post `postID` under `parentID` (top level when nil), with
    /// `content` when given, if the server shows one.
    public static func ownComment(
        on postID: String, parentID: String?, content: String? = nil, agent: AgentIdentity, client: MoltbookClient
    ) async throws(APIError) -> Comment? {
        let detail = try await client.post(id: postID).value
        var comments = detail.comments
        if !detail.commentsIncluded {
            comments = try await client.comments(postID: postID, sort: .new, limit: 100).value.items
        }
        return comments.flatMap(\.flattened).first { comment in
            agent.isSelf(comment.author) && comment.parentID == parentID
                && (content == nil || comment.content == content)
        }
    }

    /// The agent's current vote on a post, or nil when the server does not say.
    public static func postVote(_ postID: String, client: MoltbookClient) async throws(APIError) -> VoteState? {
        try await client.post(id: postID).value.post.myVote
    }
}

/// What the pages of one newest-first listing have shown, and whether they cover the interval
/// since `since`: every item read is ordered newest first and one of them is older than `since`
/// (so nothing newer was skipped), or the server said the listing ended. A listing whose items
/// carry no time, or come out of order, or whose next page repeats the last one (a server that
/// ignores the cursor or the offset), covers nothing but its end.
struct Listing<Item: Sendable> {
    struct Request: Equatable {
        var cursor: String?
        var offset: Int?
    }

    let since: Date
    let id: (Item) -> String
    let createdAt: (Item) -> Date?
    private(set) var pages = 0
    private(set) var seen: Set<String> = []
    private var oldest: Date?
    private var ordered = true
    private var untimed = false
    private var reachedBack = false
    private(set) var ended = false
    private var stalled = false
    private var next: Request?

    init(since: Date, id: @escaping (Item) -> String, createdAt: @escaping (Item) -> Date?) {
        self.since = since
        self.id = id
        self.createdAt = createdAt
    }

    /// Takes one page; returns the first item `matching`.
    mutating func read(_ page: Page<Item>, matching: (Item) -> Bool) -> Item? {
        pages += 1
        var fresh = 0
        for item in page.items {
            guard seen.insert(id(item)).inserted else { continue }
            fresh += 1
            if matching(item) { return item }
            guard let at = createdAt(item) else {
                untimed = true
                continue
            }
            // One second of slack: servers round their times.
            if let oldest, at > oldest.addingTimeInterval(1) { ordered = false }
            oldest = min(oldest ?? at, at)
            if at < since { reachedBack = true }
        }
        if page.items.isEmpty || page.ended {
            ended = true
            next = nil
        } else if fresh == 0 {
            stalled = true
            next = nil
        } else if let cursor = page.nextCursor {
            next = Request(cursor: cursor, offset: nil)
        } else {
            next = Request(cursor: nil, offset: seen.count)
        }
        return nil
    }

    /// Whether what was read covers the interval.
    var covers: Bool { ended || (ordered && !untimed && reachedBack) }

    /// The next page to read, when one may tell more.
    var nextRequest: Request? { covers ? nil : next }

    func verdict(what listing: String) -> Reconciler.Verdict {
        let items = "\(seen.count) item\(seen.count == 1 ? "" : "s")"
        let pageCount = "\(pages) page\(pages == 1 ? "" : "s")"
        if ended { return .notApplied(evidence: "\(listing), read to its end (\(items)), does not hold it") }
        if covers {
            return .notApplied(
                evidence: "\(listing), read newest first back past the send (\(pageCount)), does not hold it")
        }
        if untimed {
            return .unknown(reason: "\(listing) gives no times, and \(pageCount) read did not reach its end")
        }
        if !ordered {
            return .unknown(reason: "\(listing) is not in time order; \(pageCount) read do not cover the send")
        }
        if stalled { return .unknown(reason: "\(listing) cannot be paged back (the next page repeated the last)") }
        return .unknown(reason: "\(listing) read \(pageCount) (\(items)) without reaching back past the send")
    }
}
