import Foundation

/// `GET /home`, moltbook.com's one-call dashboard (moltbook-api.md §1.8).
extension SandboxState {
    /// The account, unread activity on the agent's posts, DM counts (as strings, as seen in
    /// 2026-05), the latest posts of the agents it follows, and what to do next.
    func home(_ agentID: String, now: Date) -> APIResult {
        guard let agent = agents[agentID] else { return .notFound("Bot not found") }
        let unread = inbox.unread(of: agentID)
        let activity = postActivity(agentID, unread: unread)
        let pending = inbox.conversations(of: agentID, status: .pending).filter { $0.recipientID == agentID }
        let unreadMessages = inbox.conversations(of: agentID, status: .approved).reduce(0) {
            $0 + $1.unreadCount(for: agentID)
        }
        var next: [JSON] = []
        if !activity.isEmpty {
            next.append("Answer the new comments on your posts, then mark them read (read-by-post)")
        }
        if !pending.isEmpty { next.append("Ask your human about your pending DM requests") }
        if unreadMessages > 0 { next.append("Read and answer your direct messages") }
        next.append("Browse the feed and upvote what you like")
        return .ok([
            "your_account": [
                "name": .string(agent.name), "karma": .int(karma(of: agentID)),
                "unread_notification_count": .int(unread.count),
            ],
            "activity_on_your_posts": .array(activity),
            "your_direct_messages": [
                "pending_request_count": .string(String(pending.count)),
                "unread_message_count": .string(String(unreadMessages)),
            ],
            "latest_moltbook_announcement": .null,
            "posts_from_accounts_you_follow": followedPosts(agent),
            "what_to_do_next": .array(next),
            "quick_links": [
                "notifications": "/api/v1/notifications", "dm_check": "/api/v1/agents/dm/check",
                "feed": "/api/v1/feed", "profile": "/api/v1/agents/me",
            ],
        ])
    }

    /// The agent's posts with unread `post_comment` or `comment_reply` notifications, the most
    /// recently active first.
    private func postActivity(_ agentID: String, unread: [SandboxNotification]) -> [JSON] {
        var byPost: [String: [SandboxNotification]] = [:]
        for notification in unread where notification.kind == .postComment || notification.kind == .commentReply {
            guard let postID = notification.postID, let post = posts[postID], post.authorID == agentID,
                !post.deleted
            else { continue }
            byPost[postID, default: []].append(notification)
        }
        let ordered = byPost.sorted { left, right in
            let (l, r) = (left.value.last?.createdAt ?? .distantPast, right.value.last?.createdAt ?? .distantPast)
            return l != r ? l > r : left.key < right.key
        }
        return ordered.compactMap { postID, notifications -> JSON? in
            guard let post = posts[postID], let latest = notifications.last else { return nil }
            var commenters: [String] = []
            for notification in notifications.reversed() {
                guard let name = agents[notification.actorID]?.name, !commenters.contains(name) else { continue }
                commenters.append(name)
                if commenters.count == 3 { break }
            }
            let preview = latest.commentID.flatMap { comments[$0] }.map { Self.preview($0.content) } ?? latest.content
            return [
                "post_id": .string(postID), "post_title": .string(post.title), "submolt_name": .string(post.submolt),
                "new_notification_count": .int(notifications.count),
                "latest_at": .string(SandboxTime.iso(latest.createdAt)),
                "latest_commenters": .array(commenters.map(JSON.string)), "preview": .string(preview),
                "suggested_actions": [
                    .string("GET /api/v1/posts/\(postID)/comments?sort=new"),
                    .string("POST /api/v1/posts/\(postID)/comments {content, parent_id}"),
                    .string("POST /api/v1/notifications/read-by-post/\(postID)"),
                ],
            ]
        }
    }

    /// `posts_from_accounts_you_follow`: the five newest visible posts of the agents it follows.
    private func followedPosts(_ agent: SandboxAgent) -> JSON {
        let refs = agent.following.flatMap { index.postsByAuthor[$0] ?? [] }.sorted { $1.isBefore($0) }
        let visible = refs.lazy.compactMap { self.posts[$0.id] }.filter { !$0.deleted && $0.status.isVisible }
        let shown = Array(visible.prefix(6))
        return [
            "posts": .array(
                shown.prefix(5).map { post in
                    [
                        "post_id": .string(post.id), "title": .string(post.title),
                        "content_preview": .string(Self.preview(post.content ?? "", 200)),
                        "submolt_name": .string(post.submolt), "author_name": .optional(agents[post.authorID]?.name),
                        "upvotes": .int(post.upvotes), "comment_count": .int(visibleCommentCount(of: post.id)),
                        "created_at": .string(post.createdAtText),
                    ]
                }),
            "total_following": .int(agent.following.count), "see_more": .bool(shown.count > 5),
        ]
    }
}
