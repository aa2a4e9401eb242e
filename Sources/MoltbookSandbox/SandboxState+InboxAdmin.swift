import Foundation

/// Admin views of notifications, comments, conversations and the simulation, and an agent's age:
/// what tests check ("marked read only after the answer was published", "answered only in
/// approved conversations") without going through an agent's key.
extension SandboxState {
    /// `POST /_sandbox/agents/NAME/age {"created_at": ISO} | {"age_seconds": N}`: moves the agent's
    /// `created_at` (its new-agent limits and DM access follow).
    mutating func setAge(named name: String, _ body: JSON?, now: Date) -> APIResult {
        guard let id = agentID(named: name), agents[id] != nil else { return .notFound("Bot not found") }
        let createdAt: Date
        if let text = body?["created_at"]?.stringValue, let date = SandboxTime.parse(text) {
            createdAt = date
        } else if let seconds = body?["age_seconds"]?.doubleValue, seconds.isFinite, seconds >= 0 {
            createdAt = now.addingTimeInterval(-seconds)
        } else {
            return .badRequest(
                "Invalid age", hint: "Send {\"created_at\": \"2026-01-01T00:00:00Z\"} or {\"age_seconds\": 86400}")
        }
        agents[id]?.createdAt = createdAt
        return .ok([
            "agent": ["name": .string(agents[id]?.name ?? name), "created_at": .string(SandboxTime.iso(createdAt))]
        ])
    }

    /// Every notification in creation order (only `agent`'s when given), read or not.
    func notificationList(agent name: String?) -> [JSON] {
        let positions: [Int]
        if let name {
            positions = agentID(named: name).flatMap { inbox.byAgent[$0] } ?? []
        } else {
            positions = Array(inbox.notifications.indices)
        }
        return positions.map { position in
            let notification = inbox.notifications[position]
            return [
                "id": .string(notification.id), "agent": .optional(agents[notification.agentID]?.name),
                "type": .string(notification.kind.rawValue), "post_id": .optional(notification.postID),
                "comment_id": .optional(notification.commentID),
                "conversation_id": .optional(notification.conversationID),
                "actor": .optional(agents[notification.actorID]?.name), "content": .string(notification.content),
                "created_at": .string(SandboxTime.iso(notification.createdAt)),
                "read_at": .optional(notification.readAt.map(SandboxTime.iso)),
            ]
        }
    }

    /// Every comment in creation order (of one post, by one author, when given), whatever its status.
    func commentList(post postID: String?, author name: String?) -> [JSON] {
        let authorID = name.map { agentID(named: $0) ?? "" }
        return comments.values.filter { comment in
            (postID == nil || comment.postID == postID) && (authorID == nil || comment.authorID == authorID)
        }.sorted { $0.seq < $1.seq }.map { comment in
            var depth = 1
            var parent = comment.parentID
            while let id = parent, depth < 10_000 {
                depth += 1
                parent = comments[id]?.parentID
            }
            let author = agents[comment.authorID]
            return [
                "id": .string(comment.id), "post_id": .string(comment.postID), "parent_id": .optional(comment.parentID),
                "author": .optional(author?.name), "simulated": .bool(author?.isSimulated == true),
                "content": .string(comment.content), "status": .string(comment.status.rawValue), "depth": .int(depth),
                "created_at": .string(SandboxTime.iso(comment.createdAt)),
            ]
        }
    }

    /// Every DM conversation in creation order (only those `agent` takes part in, when given), with
    /// each message's `read_at`.
    func conversationList(agent name: String?) -> [JSON] {
        let agentID = name.map { self.agentID(named: $0) ?? "" }
        return inbox.conversations.values.filter { agentID == nil || $0.involves(agentID ?? "") }
            .sorted { $0.seq < $1.seq }.map { conversation in
                [
                    "conversation_id": .string(conversation.id),
                    "from": .optional(agents[conversation.initiatorID]?.name),
                    "to": .optional(agents[conversation.recipientID]?.name),
                    "status": .string(conversation.status.rawValue), "decided_by": .optional(conversation.decidedBy),
                    "decided_at": .optional(conversation.decidedAt.map(SandboxTime.iso)),
                    "created_at": .string(SandboxTime.iso(conversation.createdAt)),
                    "messages": .array(
                        conversation.messages.map { message in
                            [
                                "id": .string(message.id), "sender": .optional(agents[message.senderID]?.name),
                                "content": .string(message.content),
                                "created_at": .string(SandboxTime.iso(message.createdAt)),
                                "read_at": .optional(message.readAt.map(SandboxTime.iso)),
                                "needs_human_input": .bool(message.needsHumanInput),
                            ]
                        }),
                ]
            }
    }

    /// `GET /_sandbox/simulation`: the simulated agents, the events still scheduled (earliest
    /// first), each thread's bounds, and what happened so far.
    func simulationSummary() -> APIResult {
        let scheduled: [JSON] = simulation.queue.map { event in
            var fields: [String: JSON] = ["at": .string(SandboxTime.iso(event.at)), "kind": .string(event.name)]
            switch event.kind {
            case .comment(let agent, let post, _, _, _):
                fields["agent"] = .optional(agents[agent]?.name)
                fields["post_id"] = .string(post)
            case .reply(let agent, let post, let parent, _, _):
                fields["agent"] = .optional(agents[agent]?.name)
                fields["post_id"] = .string(post)
                fields["comment_id"] = .string(parent)
            case .mentionPost, .dmRequest:
                break
            case .approve(let conversation):
                fields["conversation_id"] = .string(conversation)
            case .message(let agent, let conversation, _):
                fields["agent"] = .optional(agents[agent]?.name)
                fields["conversation_id"] = .string(conversation)
            }
            return .object(fields)
        }
        let threads: [JSON] = simulation.threads.sorted { $0.key < $1.key }.map { key, thread in
            [
                "thread": .string(key), "agent": .optional(agents[thread.agentID]?.name),
                "max_replies": .int(thread.maxReplies), "replies": .int(thread.replies), "closed": .bool(thread.closed),
            ]
        }
        return .ok([
            "agents": .array(
                Array(simulation.agentIDs.prefix(config.simulation.agents)).map { .optional(agents[$0]?.name) }),
            "scheduled": .array(scheduled), "threads": .array(threads),
            "events": .object(counters.simulatedEvents.mapValues { .int($0) }),
        ])
    }
}
