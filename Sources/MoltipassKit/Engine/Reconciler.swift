import Foundation
import MoltbookAPI

/// Decides, by reading back, whether a write whose outcome was lost was applied.
///
/// - Posts: the agent's recent posts (global feed, newest first) are searched for one by the
///   agent with the same title (and content) created after the intent.
/// - Comments: the post's comments are searched for one by the agent with the same content.
/// - Follow / subscribe and their inverses are idempotent on the server: sending again is safe.
/// - Votes toggle and production shows no "your vote": a vote whose outcome is unknown is
///   never sent again; it is reported as uncertain and left alone.
public enum Reconciler {
    public enum Verdict: Sendable, Equatable {
        /// Applied; the remote id when one could be found.
        case applied(remoteID: String?)
        /// Certainly not applied: safe to send.
        case notApplied
        /// Cannot be known (votes): do not send again.
        case unknowable
    }

    public static func reconcile(
        _ write: PlannedWrite, agent: String, intentAt: Date, client: MoltbookClient
    ) async throws(APIError) -> Verdict {
        // Server clocks and ours differ; a post "created" slightly before our intent still counts.
        let earliest = intentAt.addingTimeInterval(-300)
        switch write.kind {
        case .post:
            let page = try await client.posts(sort: .new, limit: 50).value
            let match = page.items.first { post in
                post.author?.name.lowercased() == agent.lowercased() && post.title == write.title
                    && (write.content == nil || post.content == nil || post.content == write.content)
                    && (post.createdAt.map { $0 >= earliest } ?? true)
            }
            if let match { return .applied(remoteID: match.id) }
            // Pending (challenged) posts are hidden from feeds; the profile's recent posts are a
            // second look before concluding that nothing was created.
            let profile = try await client.profile(name: agent).value
            if let own = profile.recentPosts.first(where: { $0.title == write.title }) {
                return .applied(remoteID: own.id)
            }
            return .notApplied
        case .comment:
            let detail = try await client.post(id: write.target ?? "").value
            let match = detail.comments.flatMap(\.flattened).first { comment in
                comment.author?.name.lowercased() == agent.lowercased() && comment.content == write.content
                    && comment.parentID == write.parentID
            }
            return match.map { .applied(remoteID: $0.id) } ?? .notApplied
        case .follow, .unfollow, .subscribe, .unsubscribe:
            return .notApplied
        case .upvotePost, .downvotePost, .upvoteComment:
            return .unknowable
        }
    }
}
