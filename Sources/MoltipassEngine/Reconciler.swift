import Foundation
import MoltbookAPI

/// Asks the server what it holds, before a write that cannot be undone twice and after one
/// whose outcome was lost. The server is the record: the journal can be lost, copied or stale,
/// and an operator may act by hand.
///
/// - Posts: the agent's recent posts (global feed, newest first, then its profile) are searched
///   for one by the agent with the same title (and content) created after the intent.
/// - Comments: the post's comments (embedded in `GET /posts/ID`, else `GET /posts/ID/comments`)
///   are searched for one by the agent under the same parent.
/// - Votes: the post's own vote field (`your_vote`, `userVote`, `user_vote`), where the server
///   gives one; otherwise the outcome cannot be known and the vote is not sent again.
/// - Follow / subscribe and their inverses are idempotent on the server: sending again is safe.
///
/// "By the agent" means by its identity on the server (`AgentIdentity`), never the keychain
/// entry's name.
public enum Reconciler {
    public enum Verdict: Sendable, Equatable {
        /// Applied; the remote id when one could be found.
        case applied(remoteID: String?)
        /// Certainly not applied: safe to send.
        case notApplied
        /// Cannot be known (votes on a server that shows no vote state): do not send again.
        case unknowable
    }

    public static func reconcile(
        _ write: PlannedWrite, agent: AgentIdentity, intentAt: Date, client: MoltbookClient
    ) async throws(APIError) -> Verdict {
        // Server clocks and ours differ; a post "created" slightly before our intent still counts.
        let earliest = intentAt.addingTimeInterval(-300)
        switch write.kind {
        case .post:
            let page = try await client.posts(sort: .new, limit: 50).value
            let match = page.items.first { post in
                agent.isSelf(post.author) && post.title == write.title
                    && (write.content == nil || post.content == nil || post.content == write.content)
                    && (post.createdAt.map { $0 >= earliest } ?? true)
            }
            if let match { return .applied(remoteID: match.id) }
            // Pending (challenged) posts are hidden from feeds; the profile's recent posts are a
            // second look before concluding that nothing was created.
            do {
                let profile = try await client.profile(name: agent.name).value
                if let own = profile.recentPosts.first(where: { $0.title == write.title }) {
                    return .applied(remoteID: own.id)
                }
            } catch  where [.notFound, .methodNotAllowed].contains(error.code) {
                // A server without profiles: the feed was the only look there is.
            }
            return .notApplied
        case .comment:
            let match = try await ownComment(
                on: write.target ?? "", parentID: write.parentID, content: write.content, agent: agent, client: client)
            return match.map { .applied(remoteID: $0.id) } ?? .notApplied
        case .follow, .unfollow, .subscribe, .unsubscribe:
            return .notApplied
        case .upvotePost, .downvotePost:
            switch try await postVote(write.target ?? "", client: client) {
            case nil: return .unknowable
            case let state? where state == write.desiredVote: return .applied(remoteID: nil)
            case _?: return .notApplied
            }
        case .upvoteComment, .downvoteComment:
            return .unknowable
        case .reply:
            let match = try await ownReply(write, agent: agent, client: client)
            return match.map { .applied(remoteID: $0.id) } ?? .notApplied
        case .directMessage:
            let match = try await ownMessage(
                after: write.target ?? "", in: write.conversation ?? "", agent: agent, client: client)
            return match.map { .applied(remoteID: $0.id) } ?? .notApplied
        case .approveRequest:
            // Still pending: not applied. Gone from the pending requests: approved (or withdrawn,
            // which a second approval cannot change either).
            let pending = try await client.dmRequests().value
            return pending.contains { $0.id == write.target } ? .notApplied : .applied(remoteID: nil)
        }
    }

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
        let messages = try await client.dmConversation(id: conversation).value.messages
        guard let index = messages.firstIndex(where: { $0.id == triggerID }) else { return nil }
        return messages[(index + 1)...].first { message in
            message.senderName.map { agent.isSelf(AuthorRef(id: nil, name: $0)) } ?? false
        }
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
