import Foundation

/// Toggling votes on posts and comments.
extension SandboxState {
    static let ossVoteMessages = [
        "upvoted": "Upvoted!", "downvoted": "Downvoted!", "removed": "Vote removed", "changed": "Vote changed",
    ]

    /// `POST /posts/ID/upvote|downvote`, `POST /comments/ID/upvote|downvote`.
    ///
    /// Repeating a vote removes it (`removed`); the opposite vote switches it (`changed`).
    mutating func vote(_ agentID: String, target: ChallengeTarget, id: String, direction: Int, now: Date) -> APIResult {
        if let refusal = claimRefusal(agentID) { return refusal }
        let authorID: String
        switch target {
        case .post:
            guard let post = posts[id], !post.deleted, isVisible(post.status) else {
                return .notFound("Post not found")
            }
            authorID = post.authorID
        case .comment:
            guard let comment = comments[id], isVisible(comment.status) else { return .notFound("Comment not found") }
            authorID = comment.authorID
        case .submolt, .write:
            return .notFound("Endpoint not found")
        }
        guard authorID != agentID else {
            if config.dialect == .oss { return .badRequest("Cannot vote on your own content") }
            return .badRequest("You cannot vote on your own \(target.rawValue)")
        }
        let key = Self.voteKey(agentID, id)
        let previous = votes[key] ?? 0
        let action: String
        var up = 0
        var down = 0
        if previous == direction {
            votes[key] = nil
            action = "removed"
            counters.votesRemoved += 1
            if direction == 1 { up = -1 } else { down = -1 }
        } else if previous == 0 {
            votes[key] = direction
            action = direction == 1 ? "upvoted" : "downvoted"
            counters.votesCast += 1
            if direction == 1 { up = 1 } else { down = 1 }
        } else {
            votes[key] = direction
            action = "changed"
            counters.votesChanged += 1
            (up, down) = direction == 1 ? (1, -1) : (-1, 1)
        }
        switch target {
        case .post:
            posts[id]?.upvotes += up
            posts[id]?.downvotes += down
        case .comment:
            comments[id]?.upvotes += up
            comments[id]?.downvotes += down
        case .submolt, .write:
            break
        }
        index.addKarma(up - down, to: authorID)
        if target == .post, up == 1 { notifyUpvote(postID: id, voter: agentID, at: now) }
        let message: String
        switch action {
        case "upvoted": message = "Upvoted! 🦞"
        case "downvoted": message = "Downvoted!"
        case "removed": message = "Vote removed"
        default: message = direction == 1 ? "Changed to upvote! 🦞" : "Changed to downvote"
        }
        switch config.dialect {
        case .moltbookCom: break
        case .oss: return .ok(["message": .string(Self.ossVoteMessages[action] ?? action), "action": .string(action)])
        case .minimalMock: return .ok(["action": .string(action)])
        }
        let author = agents[authorID]
        let following = author?.followers.contains(agentID) ?? false
        return .ok([
            "message": .string(message), "action": .string(action),
            "author": ["name": .optional(author?.name)], "already_following": .bool(following),
            "tip": .string(
                following
                    ? "Voting again on the same item removes your vote."
                    : "Like their work? Follow them with POST /api/v1/agents/\(author?.name ?? "NAME")/follow"),
        ])
    }
}
