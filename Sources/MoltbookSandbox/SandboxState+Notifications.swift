import Foundation

/// Notifications: made when content becomes visible (a comment on an agent's post, a reply to
/// its comment, an `@name` mention), on a DM request and on a post upvote; listed newest first;
/// marked read per post or all at once.
extension SandboxState {
    /// Adds a notification for `agentID`, unless that agent is simulated (nobody reads theirs),
    /// unknown, or the actor itself.
    mutating func notify(
        _ agentID: String, _ kind: NotificationKind, actor: String, post: String? = nil, comment: String? = nil,
        conversation: String? = nil, content: String, at time: Date
    ) {
        guard agentID != actor, let agent = agents[agentID], !agent.isSimulated else { return }
        inbox.add(
            SandboxNotification(
                id: inboxRandom.uuid(), agentID: agentID, kind: kind, postID: post, commentID: comment,
                conversationID: conversation, actorID: actor, content: content, createdAt: time))
        counters.notificationsCreated += 1
    }

    /// The notifications of a comment that just became visible: `comment_reply` for the author of
    /// the comment it answers, `post_comment` for the post's author, `mention` for each other
    /// agent it names; at most one per agent, in that order of precedence.
    mutating func notifyComment(_ comment: SandboxComment, at time: Date) {
        guard let post = posts[comment.postID] else { return }
        let actor = comment.authorID
        let name = agents[actor]?.name ?? "Someone"
        let preview = Self.preview(comment.content)
        var told: Set<String> = [actor]
        if let parentID = comment.parentID, let parent = comments[parentID], told.insert(parent.authorID).inserted {
            notify(
                parent.authorID, .commentReply, actor: actor, post: post.id, comment: comment.id,
                content: "\(name) replied to your comment: \(preview)", at: time)
        }
        if told.insert(post.authorID).inserted {
            notify(
                post.authorID, .postComment, actor: actor, post: post.id, comment: comment.id,
                content: "\(name) commented on your post \"\(Self.preview(post.title, 80))\": \(preview)", at: time)
        }
        for mentioned in mentionedAgents(in: comment.content) where told.insert(mentioned).inserted {
            notify(
                mentioned, .mention, actor: actor, post: post.id, comment: comment.id,
                content: "\(name) mentioned you in a comment: \(preview)", at: time)
        }
    }

    /// The `mention` notifications of a post that just became visible.
    mutating func notifyPost(_ post: SandboxPost, at time: Date) {
        let name = agents[post.authorID]?.name ?? "Someone"
        for mentioned in mentionedAgents(in: post.title + "\n" + (post.content ?? "")) {
            notify(
                mentioned, .mention, actor: post.authorID, post: post.id,
                content: "\(name) mentioned you in a post: \"\(Self.preview(post.title, 80))\"", at: time)
        }
    }

    /// The `post_upvote` notification of a new upvote on a post.
    mutating func notifyUpvote(postID: String, voter: String, at time: Date) {
        guard let post = posts[postID] else { return }
        let name = agents[voter]?.name ?? "Someone"
        notify(
            post.authorID, .postUpvote, actor: voter, post: postID,
            content: "\(name) upvoted your post \"\(Self.preview(post.title, 80))\"", at: time)
    }

    /// The registered agents a text names as `@name` (a name of 2–32 letters, digits, `_` or `-`
    /// right after an `@` that does not follow a letter or digit), each once, in order.
    func mentionedAgents(in text: String) -> [String] {
        var found: [String] = []
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            defer { index += 1 }
            guard characters[index] == "@" else { continue }
            if index > 0, characters[index - 1].isLetter || characters[index - 1].isNumber { continue }
            var end = index + 1
            while end < characters.count, characters[end].isASCII,
                characters[end].isLetter || characters[end].isNumber || characters[end] == "_" || characters[end] == "-"
            {
                end += 1
            }
            let name = String(characters[(index + 1)..<end])
            if Self.isValidAgentName(name), let id = agentID(named: name), !found.contains(id) { found.append(id) }
            index = end - 1
        }
        return found
    }

    /// The first `limit` characters of a text on one line, with `…` when cut.
    static func preview(_ text: String, _ limit: Int = 120) -> String {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count <= limit ? line : String(line.prefix(limit - 1)) + "…"
    }

    // MARK: Routes

    /// `GET /notifications?limit&cursor`: newest first, with the unread count.
    func listNotifications(_ agentID: String, _ query: [String: String]) -> APIResult {
        let limit = SandboxPagination.limit(query, default: 25, max: 100)
        let mine = (inbox.byAgent[agentID] ?? []).reversed().map { inbox.notifications[$0] }
        guard let page = SandboxPagination.page(mine, id: \.id, limit: limit, cursor: query["cursor"]) else {
            return SandboxPagination.invalidCursor
        }
        return .ok([
            "notifications": .array(page.items.map(notificationJSON)), "count": .int(page.items.count),
            "unread_count": .int(inbox.unreadByAgent[agentID]?.count ?? 0), "has_more": .bool(page.hasMore),
            "next_cursor": .optional(page.nextCursor),
        ])
    }

    /// One notification as `GET /notifications` lists it (camelCase, as seen on moltbook.com).
    func notificationJSON(_ notification: SandboxNotification) -> JSON {
        [
            "id": .string(notification.id), "type": .string(notification.kind.rawValue),
            "relatedPostId": .optional(notification.postID), "relatedCommentId": .optional(notification.commentID),
            "isRead": .bool(notification.readAt != nil), "content": .string(notification.content),
            "createdAt": .string(SandboxTime.iso(notification.createdAt)),
            "actorName": .optional(agents[notification.actorID]?.name),
        ]
    }

    /// `POST /notifications/read-by-post/ID`: marks read the agent's notifications about that post
    /// that exist now; a later comment makes a new, unread one.
    mutating func readNotifications(_ agentID: String, postID: String, now: Date) -> APIResult {
        guard posts[postID] != nil else { return .notFound("Post not found") }
        let marked = inbox.markRead(of: agentID, at: now) { $0.postID == postID && $0.createdAt <= now }
        counters.notificationsMarkedRead += marked
        return .ok([
            "message": .string("Marked \(SandboxWording.plural(marked, "notification")) as read"),
            "marked_read": .int(marked), "post_id": .string(postID),
        ])
    }

    /// `POST /notifications/read-all`.
    mutating func readAllNotifications(_ agentID: String, now: Date) -> APIResult {
        let marked = inbox.markRead(of: agentID, at: now) { $0.createdAt <= now }
        counters.notificationsMarkedRead += marked
        return .ok([
            "message": .string("Marked \(SandboxWording.plural(marked, "notification")) as read"),
            "marked_read": .int(marked),
        ])
    }
}

extension SandboxState {
    /// A comment just became visible (created without a challenge, or verified): its
    /// notifications, and what the simulated agents make of it.
    mutating func published(_ comment: SandboxComment, at time: Date) {
        notifyComment(comment, at: time)
        simulationSawComment(comment, at: time)
    }

    /// A post just became visible: its mentions, and the simulated agents' comments to come.
    mutating func published(_ post: SandboxPost, at time: Date) {
        notifyPost(post, at: time)
        simulationSawPost(post, at: time)
    }
}
