import Foundation

/// JSON renderings of agents, posts, comments and submolts, in the field names of the real API.
extension SandboxState {
    /// The agent's score over its comments and non-deleted posts.
    func karma(of agentID: String) -> Int {
        index.karma[agentID] ?? 0
    }

    func ownerJSON(_ agent: SandboxAgent) -> JSON {
        guard agent.claimed else { return .null }
        let handle = "owner_" + agent.name.lowercased()
        return [
            "x_handle": .string(handle), "x_name": .string("Owner of \(agent.name)"), "x_avatar": nil, "x_bio": "",
            "x_follower_count": 0, "x_following_count": 0, "x_verified": false,
        ]
    }

    /// `{id, name}`, or null for an unknown agent.
    func authorBrief(_ agentID: String) -> JSON {
        guard let agent = agents[agentID] else { return .null }
        return ["id": .string(agent.id), "name": .string(agent.name)]
    }

    /// The public profile fields of an agent.
    func agentPublicJSON(_ agent: SandboxAgent, viewer: String?) -> [String: JSON] {
        var fields: [String: JSON] = [
            "id": .string(agent.id), "name": .string(agent.name), "description": .string(agent.description),
            "karma": .int(karma(of: agent.id)), "follower_count": .int(agent.followers.count),
            "following_count": .int(agent.following.count), "is_claimed": .bool(agent.claimed),
            "is_active": true, "created_at": .string(SandboxTime.iso(agent.createdAt)),
            "last_active": .string(SandboxTime.iso(agent.lastActive)), "owner": ownerJSON(agent),
            "avatar_url": .optional(agent.avatarURL),
        ]
        if let viewer, viewer != agent.id, !viewer.isEmpty {
            fields["you_follow"] = .bool(agent.followers.contains(viewer))
        }
        return fields
    }

    func submoltBrief(_ name: String) -> JSON {
        guard let submolt = submolts[name] else { return ["name": .string(name)] }
        return [
            "id": .string(submolt.id), "name": .string(submolt.name), "display_name": .string(submolt.displayName),
        ]
    }

    func visibleCommentCount(of postID: String) -> Int {
        (index.commentsByPost[postID] ?? []).reduce(0) { count, id in
            count + (comments[id].map { isVisible($0.status) } == true ? 1 : 0)
        }
    }

    /// Whether content in `status` shows in lists (pending/failed are hidden unless configured otherwise).
    func isVisible(_ status: ContentStatus) -> Bool {
        status.isVisible || !config.hidePendingContent
    }

    /// A post as it appears in lists and feeds.
    func postJSON(_ post: SandboxPost) -> [String: JSON] {
        var fields: [String: JSON] = [
            "id": .string(post.id), "title": .string(post.title), "content": .optional(post.content),
            "url": .optional(post.url), "type": .string(post.type), "upvotes": .int(post.upvotes),
            "downvotes": .int(post.downvotes), "score": .int(post.upvotes - post.downvotes),
            "comment_count": .int(visibleCommentCount(of: post.id)),
            "created_at": .string(post.createdAtText), "author": authorBrief(post.authorID),
            "submolt": submoltBrief(post.submolt),
        ]
        if post.status != .published { fields["verification_status"] = .string(post.status.rawValue) }
        return fields
    }

    /// `postJSON` as a list shows it, from `listedPosts` while the post's counts and status are
    /// those it was rendered with (its other fields never change): feeds list the same posts
    /// pass after pass, and building each one's fields again was most of a feed read.
    mutating func listedPostJSON(_ post: SandboxPost) -> JSON {
        let key = ListedPost.Key(
            upvotes: post.upvotes, downvotes: post.downvotes, comments: visibleCommentCount(of: post.id),
            status: post.status)
        if let listed = listedPosts[post.id], listed.key == key { return listed.json }
        // Bounded: a month's simulation lists tens of thousands of posts; start over past the cap.
        if listedPosts.count >= ListedPost.cap { listedPosts.removeAll(keepingCapacity: true) }
        let json = JSON.object(postJSON(post))
        listedPosts[post.id] = ListedPost(key: key, json: json)
        return json
    }

    /// The viewer's vote on a target: `"upvote"`, `"downvote"` or null.
    func yourVote(_ viewer: String, on targetID: String) -> JSON {
        switch votes[Self.voteKey(viewer, targetID)] {
        case 1: "upvote"
        case -1: "downvote"
        default: .null
        }
    }

    /// A comment with its author, and `replies` when given.
    func commentJSON(_ comment: SandboxComment, viewer: String, replies: [JSON]? = nil) -> JSON {
        var author: JSON = .null
        if let agent = agents[comment.authorID] {
            author = [
                "id": .string(agent.id), "name": .string(agent.name), "karma": .int(karma(of: agent.id)),
                "follower_count": .int(agent.followers.count),
            ]
        }
        var fields: [String: JSON] = [
            "id": .string(comment.id), "post_id": .string(comment.postID), "content": .string(comment.content),
            "parent_id": .optional(comment.parentID), "upvotes": .int(comment.upvotes),
            "downvotes": .int(comment.downvotes), "score": .int(comment.upvotes - comment.downvotes),
            "created_at": .string(SandboxTime.iso(comment.createdAt)), "author": author,
            "your_vote": yourVote(viewer, on: comment.id),
        ]
        if let replies { fields["replies"] = .array(replies) }
        if comment.status != .published { fields["verification_status"] = .string(comment.status.rawValue) }
        return .object(fields)
    }

    /// A submolt with counts; `your_role` and `is_subscribed` for the viewer.
    func submoltJSON(_ submolt: SandboxSubmolt, viewer: String) -> [String: JSON] {
        var fields: [String: JSON] = [
            "id": .string(submolt.id), "name": .string(submolt.name), "display_name": .string(submolt.displayName),
            "description": .string(submolt.description), "subscriber_count": .int(submolt.subscribers.count),
            "allow_crypto": .bool(submolt.allowCrypto), "created_at": .string(SandboxTime.iso(submolt.createdAt)),
            "last_activity_at": .string(SandboxTime.iso(submolt.lastActivityAt)), "featured_at": nil,
            "created_by": submolt.ownerID.map(authorBrief) ?? .null,
        ]
        fields["your_role"] = submolt.ownerID == viewer ? "owner" : .null
        fields["is_subscribed"] = .bool(submolt.subscribers.contains(viewer))
        if submolt.status != .published { fields["verification_status"] = .string(submolt.status.rawValue) }
        return fields
    }

    static func voteKey(_ agentID: String, _ targetID: String) -> String {
        agentID + "|" + targetID
    }
}
