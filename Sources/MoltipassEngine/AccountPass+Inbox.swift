import Foundation
import MoltbookAPI
import RateLimiting
import Recipes
import Storage

/// What one pass read of the agent's inbox (issue 22). Each read is made once per pass, however
/// many steps of however many jobs ask for it: `/home` once, `/notifications` once, each
/// active post's comments once, the DM check and conversations once.
struct InboxPass {
    /// The inbound comments (replies and mentions), once read.
    var comments: Result<InboundRead, any Error>?
    /// The DM side, once read.
    var messages: Result<InboundRead, any Error>?
    /// `/home` as read (nil: not read, or the server has none).
    var home: Home?
    var homeRead = false
    var notes: [MoltbookNotification]?
    var notesRead = false
    /// Routes the server refused this pass (401/403), in words.
    var refused: [String] = []
    /// The DM check as read (for the summary).
    var check: DMCheck?
    /// Why DMs are not available, when they are not.
    var dmUnavailable: String?
    /// What of the agent's direct messages could not be read though the check answered (a
    /// route the server does not have, a conversation it would not show), in words.
    var dmUnreadable: [String] = []
    /// The pending DM requests as read, wherever the server lists them.
    var dmRequests: [DMRequest]?
    /// Posts with unread activity this pass, each with the ids of the inbound items on it the
    /// agent has not answered on the server: marked read only when each is settled.
    var activity: [String: Set<String>] = [:]
    /// Items a step passed over for good, and items a step wants answered.
    var skipped: Set<String> = []
    var wanted: Set<String> = []
}

/// A read the server does not have (404/405): the feature is unavailable there, not broken.
struct InboxUnsupported: Error {}

extension AccountPass {
    /// At most this many active posts' comments are read in one pass; the rest stay unread on
    /// the server and are read on the next.
    static let inboxPostsPerPass = 10
    /// At most this many DM conversations are read in one pass.
    static let conversationsPerPass = 10

    /// A `reply:` or `dm:` step's inbound items: read once per pass, then shared.
    func fetchInbound(_ query: InboundQuery) async -> Result<InboundRead, any Error> {
        if query.messages {
            if let done = inbox.messages { return done }
            let result: Result<InboundRead, any Error>
            do { result = .success(try await readMessages(maxAge: query.select.maxAge)) } catch {
                result = .failure(error)
            }
            inbox.messages = result
            return result
        }
        if let done = inbox.comments { return done }
        let result: Result<InboundRead, any Error>
        do { result = .success(try await readComments()) } catch { result = .failure(error) }
        inbox.comments = result
        return result
    }

    /// One read through the limiter: nil when the server has no such route (404, 405); a 429
    /// or an exhausted read budget defers (`ReadDeferred`).
    func inboxRead<T>(_ call: (MoltbookClient) async throws -> MoltbookResponse<T>) async throws -> T? {
        guard let client = await requireClient() else {
            throw ReadDeferred(until: nil, reason: access.authBroken ?? access.clientError ?? "no client")
        }
        switch limiter.reserve([.read], at: now) {
        case .allowed: break
        case .deferred(let until, let because): throw ReadDeferred(until: until, reason: "\(because)")
        case .never(let because): throw ReadDeferred(until: nil, reason: "\(because)")
        }
        do {
            let response = try await call(client)
            absorb(response.rateLimit, status: response.status, action: nil, request: .read)
            return response.value
        } catch {
            guard let error = error as? APIError else { throw error }
            absorb(error.rateLimit, status: error.status ?? 0, action: nil, request: .read)
            if error.code == .rateLimited {
                throw ReadDeferred(until: limiter.earliest([.read], at: now).date, reason: "429 on a read")
            }
            if error.code == .notFound || error.code == .methodNotAllowed { return nil }
            throw error
        }
    }

    // MARK: Replies and mentions

    /// The comments that answer the agent or mention it, on the posts with unread activity
    /// (`/home`'s `activity_on_your_posts`, the unread notifications' posts).
    func readComments() async throws -> InboundRead {
        if !inbox.homeRead {
            // A 401/403 on `/home` alone (moltbook-api.md §6.1: routes refused one by one while the
            // feed worked) leaves the notifications as the source; a 5xx fails the step (tried again).
            do {
                inbox.home = try await inboxRead { try await $0.home() }
            } catch let error as APIError where Self.refusesRoute(error) {
                inbox.refused.append("/home (\(error.message))")
                logger.warning(
                    "/home refused; the notifications alone are used",
                    metadata: ["agent": "\(agent)", "error": "\(error)"])
            }
            inbox.homeRead = true
        }
        if !inbox.notesRead {
            // A notification list that fails for another reason (a 401 on this route alone,
            // §6.1) leaves `/home` as the only source rather than failing the step.
            do {
                inbox.notes = try await inboxRead { try await $0.notifications(limit: 50) }?.items
            } catch let deferred as ReadDeferred {
                throw deferred
            } catch {
                if let error = error as? APIError, Self.refusesRoute(error) {
                    inbox.refused.append("/notifications (\(error.message))")
                }
                logger.warning(
                    "notifications could not be read; /home alone is used",
                    metadata: ["agent": "\(agent)", "error": "\(error)"])
            }
            inbox.notesRead = true
        }
        guard inbox.home != nil || inbox.notes != nil else {
            if !inbox.refused.isEmpty {
                // Refused, not missing: said as such (a key problem would also refuse the writes,
                // which pause the agent on their own).
                return InboundRead(
                    unavailable: "the server refused " + inbox.refused.joined(separator: " and ")
                        + ": replies and mentions cannot be read this pass")
            }
            return InboundRead(
                unavailable: "this server has neither /home nor /notifications: replies and mentions cannot be read")
        }
        var posts: [(id: String, title: String?, mine: Bool, submolt: String?)] = []
        var seen = Set<String>()
        for activity in (inbox.home?.activityOnYourPosts ?? []).sorted(by: Self.olderActivityFirst)
        where activity.newNotificationCount > 0 && seen.insert(activity.postID).inserted {
            posts.append((activity.postID, activity.postTitle, true, activity.submoltName))
        }
        let unread = (inbox.notes ?? []).filter { !$0.isRead }.sorted {
            ($0.createdAt ?? .distantPast, $0.id) < ($1.createdAt ?? .distantPast, $1.id)
        }
        for note in unread where Self.answerable(note.type) {
            guard let postID = note.postID, seen.insert(postID).inserted else { continue }
            posts.append((postID, note.postTitle, note.type == .postComment, nil))
        }
        var items: [Inbound] = []
        for var post in posts.prefix(Self.inboxPostsPerPass) {
            var postAuthor: String?
            if post.title == nil {
                // Found through a notification that does not carry the post's title (issue 34, observation 8:
                // a reply's `{{ post.title }}` rendered empty): the post is read once. One that is gone (404)
                // has nothing left to answer.
                guard let read = try await inboxRead({ try await $0.post(id: post.id) })?.post else { continue }
                post.title = read.title
                post.submolt = post.submolt ?? read.submolt?.name
                postAuthor = read.author?.name
            }
            guard let comments = try await inboxRead({ try await $0.comments(postID: post.id, sort: .new, limit: 100) })
            else { continue }
            let mentioned = Set(unread.filter { $0.type == .mention && $0.postID == post.id }.compactMap(\.commentID))
            let found = inbound(
                on: post.id, title: post.title, mine: post.mine, comments: comments.items, mentioned: mentioned
            ).map { item in
                var item = item
                item.postSubmolt = post.submolt
                item.postAuthor = post.mine ? identity.name : postAuthor
                return item
            }
            items += found
            inbox.activity[post.id] = Set(found.filter { !$0.answered }.map(\.id))
        }
        // A post that mentions the agent (no comment): answered with a top-level comment.
        for note in unread where note.type == .mention && note.commentID == nil {
            guard let postID = note.postID, !items.contains(where: { (item: Inbound) in item.id == "post:" + postID })
            else { continue }
            // The post itself is what mentions the agent (the notification only says so): one read.
            let post = try await inboxRead { try await $0.post(id: postID) }?.post
            let text = post.map { [$0.title, $0.content ?? ""].filter { !$0.isEmpty }.joined(separator: "\n") }
            var item = Inbound(
                source: .mentions, id: "post:" + postID, author: post?.author?.name ?? note.actorName ?? "someone",
                content: text ?? note.content ?? "", createdAt: post?.createdAt ?? note.createdAt, postID: postID,
                postTitle: post?.title)
            item.postAuthor = post?.author?.name
            item.postSubmolt = post?.submolt?.name
            items.append(item)
            inbox.activity[postID, default: []].insert(item.id)
        }
        return InboundRead(items: items)
    }

    static func olderActivityFirst(_ a: Home.PostActivity, _ b: Home.PostActivity) -> Bool {
        (a.latestAt ?? .distantPast, a.postID) < (b.latestAt ?? .distantPast, b.postID)
    }

    /// A refusal of one route (401, 403) that is not a suspension: not proof that the key is bad
    /// (moltbook-api.md §6.1), so the feature is unavailable this pass rather than the step failed.
    static func refusesRoute(_ error: APIError) -> Bool {
        [.invalidKey, .authenticationRequired, .forbidden].contains(error.code)
    }

    /// Notification kinds that name something to answer.
    static func answerable(_ kind: MoltbookNotification.Kind) -> Bool {
        switch kind {
        case .postComment, .commentReply, .mention: true
        case .dmRequest, .postUpvote: false
        // An unknown kind that points at a comment may be a reply under another name.
        case .other: true
        }
    }

    /// The inbound comments of one post: top-level comments on the agent's post, replies to the
    /// agent's comments, and comments that mention it; each with its parent chain.
    func inbound(on postID: String, title: String?, mine: Bool, comments: [Comment], mentioned: Set<String>)
        -> [Inbound]
    {
        let me = identity
        let flat = comments.flatMap(\.flattened)
        let byID = Dictionary(flat.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let mention = "@" + me.name.lowercased()
        var items: [Inbound] = []
        for comment in flat where !me.isSelf(comment.author) {
            let parent = comment.parentID.flatMap { byID[$0] }
            let isReply = (comment.parentID == nil && mine) || (parent.map { me.isSelf($0.author) } ?? false)
            let isMention =
                mentioned.contains(comment.id) || Self.mentions(comment.content.lowercased(), name: mention)
            guard isReply || isMention else { continue }
            var chain: [Inbound.Entry] = []
            var cursor = parent
            var guardCount = 0
            while let ancestor = cursor, guardCount < 64 {
                chain.insert(
                    Inbound.Entry(
                        author: ancestor.author?.name ?? "someone", content: ancestor.content,
                        mine: me.isSelf(ancestor.author), isComment: true), at: 0)
                cursor = ancestor.parentID.flatMap { byID[$0] }
                guardCount += 1
            }
            if let title {
                chain.insert(
                    Inbound.Entry(author: mine ? me.name : "post", content: title, mine: mine, isComment: false), at: 0)
            }
            let answered = flat.contains { $0.parentID == comment.id && me.isSelf($0.author) }
            items.append(
                Inbound(
                    source: isReply ? .replies : .mentions, id: comment.id, author: comment.author?.name ?? "someone",
                    content: comment.content, createdAt: comment.createdAt, thread: chain, postID: postID,
                    postTitle: title, commentID: comment.id, answered: answered))
        }
        return items
    }

    /// Whether `text` (lowercased) names `@name` as a whole word.
    static func mentions(_ text: String, name: String) -> Bool {
        var search = text[...]
        while let range = search.range(of: name) {
            let after = range.upperBound < search.endIndex ? search[range.upperBound] : " "
            if !(after.isLetter || after.isNumber || after == "_" || after == "-") { return true }
            search = search[range.upperBound...]
        }
        return false
    }

    // MARK: Direct messages

    /// The latest unanswered message of each recently active approved conversation, and the
    /// pending requests. Never for an agent younger than 24 hours (DMs are blocked then).
    func readMessages(maxAge: Int) async throws -> InboundRead {
        if let createdAt = info.createdAt, now.timeIntervalSince(createdAt) < LimitRules.newAgentPeriod {
            let until = createdAt.addingTimeInterval(LimitRules.newAgentPeriod)
            let reason =
                "direct messages are not available to agents younger than 24 hours (this one until \(MoltbookDate.format(until)))"
            inbox.dmUnavailable = reason
            return InboundRead(unavailable: reason)
        }
        let check: DMCheck?
        do {
            check = try await inboxRead { try await $0.dmCheck() }
        } catch let error as APIError where Self.refusesRoute(error) {
            let reason = "the server refused direct messages: \(error.message)"
            inbox.dmUnavailable = reason
            return InboundRead(unavailable: reason)
        }
        guard let check else {
            let reason = "this server has no direct messages (GET /agents/dm/check: not found)"
            inbox.dmUnavailable = reason
            return InboundRead(unavailable: reason)
        }
        inbox.check = check
        // Servers list pending requests in different places (issue 33, observation 8): the
        // check itself, `/agents/dm/requests`, or the conversation list (`approved: false`).
        // Every place that answers is read; a count the check gives that no answering place
        // accounts for is "cannot read", never "nothing waiting".
        var unreadable: [String] = []
        var requests = check.requests
        var requestsRoute: String?
        if check.pendingRequestCount > requests.count {
            if let listed = try await inboxRead({ try await $0.dmRequests() }) {
                requests = Self.merged(requests, listed)
            } else {
                requestsRoute = "GET /agents/dm/requests (not found)"
            }
        }
        var items: [Inbound] = []
        if let list = try await inboxRead({ try await $0.dmConversations() }) {
            requests = Self.merged(
                requests, list.conversations.filter(\.awaitsApproval).map(DMRequest.init(conversation:)))
            let recent = now.addingTimeInterval(-TimeInterval(maxAge))
            let active = list.conversations.filter {
                !$0.awaitsApproval && ($0.unreadCount > 0 || ($0.lastMessageAt ?? .distantPast) >= recent)
            }
            .sorted { ($0.lastMessageAt ?? .distantPast, $0.id) < ($1.lastMessageAt ?? .distantPast, $1.id) }
            for summary in active.prefix(Self.conversationsPerPass) {
                // Reading a conversation marks it read on the server: what decides whether a message
                // is answered is who spoke last, never the unread count. (`dmThread`: at
                // `/conversations/ID` on moltbook.com, at `/conversations/ID/messages` elsewhere.)
                guard let conversation = try await inboxRead({ try await $0.dmThread(id: summary.id) }) else {
                    unreadable.append(
                        "the conversation \(summary.id)" + (summary.withAgentName.map { " with \($0)" } ?? "")
                            + " (GET /agents/dm/conversations/ID and …/ID/messages: not found)")
                    continue
                }
                if let item = latestUnanswered(conversation, with: summary.withAgentName) { items.append(item) }
            }
        } else {
            unreadable.append("GET /agents/dm/conversations (not found)")
        }
        if check.pendingRequestCount > requests.count {
            let missing = check.pendingRequestCount - requests.count
            unreadable.append(
                "\(missing) pending DM request\(missing == 1 ? "" : "s") the check counts but no route lists"
                    + (requestsRoute.map { ": \($0)" } ?? ""))
        }
        inbox.dmUnreadable = unreadable
        inbox.dmRequests = requests
        return InboundRead(
            items: items,
            requests: requests.map {
                InboundRead.Request(id: $0.id, from: $0.fromName ?? "", preview: $0.messagePreview)
            }, unreadable: unreadable)
    }

    /// `first` then the requests of `more` not in it (by id).
    static func merged(_ first: [DMRequest], _ more: [DMRequest]) -> [DMRequest] {
        var seen = Set(first.map(\.id))
        return first + more.filter { seen.insert($0.id).inserted }
    }

    /// The other side's latest message when the agent has not spoken since, with the messages
    /// before it as its thread and the agent's answers of the last day counted.
    func latestUnanswered(_ conversation: DMConversation, with other: String?) -> Inbound? {
        let me = identity
        func mine(_ message: DMMessage) -> Bool {
            message.senderName.map { me.isSelf(AuthorRef(id: nil, name: $0)) } ?? false
        }
        let indexed = Array(conversation.messages.enumerated())
        let messages = indexed.sorted { (a: (offset: Int, element: DMMessage), b: (offset: Int, element: DMMessage)) in
            let (ta, tb) = (a.element.createdAt ?? .distantPast, b.element.createdAt ?? .distantPast)
            return ta != tb ? ta < tb : a.offset < b.offset
        }.map(\.element)
        guard let last = messages.last, !mine(last) else { return nil }
        let dayAgo = now.addingTimeInterval(-86_400)
        let answers = messages.filter { mine($0) && ($0.createdAt ?? .distantPast) >= dayAgo }.count
        let thread = messages.dropLast().suffix(10).map {
            Inbound.Entry(
                author: $0.senderName ?? (mine($0) ? me.name : other ?? "someone"), content: $0.content,
                mine: mine($0), isComment: false)
        }
        return Inbound(
            source: .dms, id: last.id, author: last.senderName ?? other ?? conversation.withAgentName ?? "someone",
            content: last.content, createdAt: last.createdAt, thread: Array(thread), conversationID: conversation.id,
            answersToday: answers)
    }

    // MARK: The summary `status` shows

    /// When `/home` says DM requests are pending and no step read them, one DM check reads who
    /// asked: a human approves requests, and `status` is where they see them.
    func readRequestsForStatus() async {
        guard inbox.check == nil, inbox.dmUnavailable == nil,
            (inbox.home?.directMessages?.pendingRequestCount ?? 0) > 0, access.authBroken == nil,
            access.clientError == nil, access.client != nil
        else { return }
        if let createdAt = info.createdAt, now.timeIntervalSince(createdAt) < LimitRules.newAgentPeriod { return }
        inbox.check = try? await inboxRead { try await $0.dmCheck() }
    }

    /// What the pass learnt of the inbox, for `status`; nil when it read nothing of it.
    func inboxSummary() -> InboxSummary? {
        guard inbox.homeRead || inbox.notesRead || inbox.check != nil || inbox.dmUnavailable != nil else { return nil }
        let home = inbox.home
        let dm: InboxSummary.DMAvailability
        if let reason = inbox.dmUnavailable {
            if let createdAt = info.createdAt, now.timeIntervalSince(createdAt) < LimitRules.newAgentPeriod {
                dm = .blocked(reason: reason, until: createdAt.addingTimeInterval(LimitRules.newAgentPeriod))
            } else if reason.contains("no direct messages") {
                dm = .unsupported
            } else {
                dm = .failed(reason: reason)
            }
        } else if inbox.check != nil || home?.directMessages != nil {
            dm = .available
        } else {
            dm = .unsupported
        }
        let unreadNotes = inbox.notes.map { notes in notes.filter { !$0.isRead }.count }
        return InboxSummary(
            asOf: now, unreadNotifications: home?.account?.unreadNotificationCount ?? unreadNotes,
            postsWithActivity: home.map { $0.activityOnYourPosts.filter { $0.newNotificationCount > 0 }.count },
            pendingRequests: (inbox.dmRequests ?? inbox.check?.requests ?? []).map {
                InboxSummary.Request(
                    from: $0.fromName ?? "?", conversationID: $0.id, preview: $0.messagePreview, createdAt: $0.createdAt
                )
            },
            unreadMessages: inbox.check.map { $0.hasNewMessages && $0.totalUnread == 0 ? nil : $0.totalUnread }
                ?? home?.directMessages?.unreadMessageCount, dm: dm,
            pendingRequestCount: inbox.check?.pendingRequestCount, unreadable: inbox.dmUnreadable)
    }

    // MARK: Marking read

    /// After the drain: the notifications of each post whose inbound items are all settled
    /// (answered and done, or passed over for good) are marked read, and not before. A post
    /// with an answer still waiting, an item capped by `max_per_run`, or an item no step
    /// looked at stays unread, so the next pass finds it again.
    func markInboxRead(into report: inout RunReport) async {
        guard !inbox.activity.isEmpty, access.authBroken == nil, access.clientError == nil,
            let client = access.client
        else { return }
        let agent = agent
        guard
            let (answered, waiting) = try? await store.read({ reader in
                let journaled = try await reader.journalTargets(
                    account: agent, actions: [PlannedWrite.Kind.reply.rawValue])
                let facts = try await reader.dedupTargets(account: agent, kind: .reply, value: nil)
                let pending = try await reader.pendingJournalEntries(account: agent)
                    .filter { $0.action == PlannedWrite.Kind.reply.rawValue }.compactMap(\.target)
                return (Set(journaled.values.joined()).union(facts), Set(pending))
            })
        else { return }
        for (postID, ids) in inbox.activity.sorted(by: { $0.key < $1.key }) {
            let settled = ids.allSatisfy { id in
                (answered.contains(id) && !waiting.contains(id))
                    || (inbox.skipped.contains(id) && !inbox.wanted.contains(id))
            }
            guard settled else { continue }
            // A comment that came in since the read must not be marked read unseen: the post is
            // read again first, and left unread when it holds an item not settled.
            guard case .allowed = limiter.reserve([.read], at: now),
                let fresh = try? await client.comments(postID: postID, sort: .new, limit: 100)
            else { continue }
            absorb(fresh.rateLimit, status: fresh.status, action: nil, request: .read)
            let mine = inbox.home?.activityOnYourPosts.contains { $0.postID == postID } ?? false
            let now = inbound(on: postID, title: nil, mine: mine, comments: fresh.value.items, mentioned: [])
            guard now.allSatisfy({ $0.answered || ids.contains($0.id) }) else { continue }
            guard case .allowed = limiter.reserve([.write], at: self.now) else { break }
            do throws(APIError) {
                let response = try await client.markNotificationsRead(postID: postID)
                absorb(response.rateLimit, status: response.status, action: nil, request: .write)
                report.items.append(
                    RunReport.Item(
                        agent: agent, recipe: "", job: "", action: "mark notifications of post \(postID) read",
                        outcome: .done, reason: "every reply and mention on it was answered or passed over"))
            } catch {
                absorb(error.rateLimit, status: error.status ?? 0, action: nil, request: .write)
                logger.warning(
                    "could not mark notifications read",
                    metadata: ["agent": "\(agent)", "post": "\(postID)", "error": "\(error)"])
            }
        }
    }
}
