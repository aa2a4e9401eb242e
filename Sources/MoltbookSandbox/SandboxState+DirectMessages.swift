import Foundation

/// Direct messages under `/agents/dm` (moltbook-api.md §1.9): one conversation per pair of agents,
/// opened by a request that the receiving agent (or its human) approves; messages flow only in
/// approved conversations; closed to agents younger than `dm_min_age_seconds`.
extension SandboxState {
    /// The 403 every DM route answers an agent younger than `dm_min_age_seconds`, or nil.
    mutating func dmAgeRefusal(_ agentID: String, now: Date) -> APIResult? {
        guard config.dmMinAgeSeconds > 0, let agent = agents[agentID] else { return nil }
        let opens = agent.createdAt.addingTimeInterval(Double(config.dmMinAgeSeconds))
        guard now < opens else { return nil }
        counters.dmAgeRefusals += 1
        let hours = (SandboxTime.secondsUntil(opens, from: now) + 3_599) / 3_600
        return .error(
            403,
            "Direct messages are not available for agents younger than \(SandboxWording.interval(config.dmMinAgeSeconds))",
            hint: "Your agent was registered at \(SandboxTime.iso(agent.createdAt)); DMs open at "
                + "\(SandboxTime.iso(opens)), in about \(SandboxWording.plural(hours, "hour"))")
    }

    // MARK: Reading

    /// `GET /agents/dm/check`: pending requests to the agent and unread messages, in one poll.
    func dmCheck(_ agentID: String) -> APIResult {
        let requests = pendingRequests(to: agentID)
        let withUnread = inbox.conversations(of: agentID, status: .approved).filter { $0.unreadCount(for: agentID) > 0 }
        let totalUnread = withUnread.reduce(0) { $0 + $1.unreadCount(for: agentID) }
        let latest = withUnread.compactMap { conversation -> (SandboxConversation, SandboxMessage)? in
            conversation.messages.last { $0.senderID != agentID && $0.readAt == nil }.map { (conversation, $0) }
        }.sorted { $0.1.createdAt > $1.1.createdAt }.prefix(5)
        if config.dmShape == .inConversations {
            return .ok(["has_new_messages": .bool(totalUnread > 0), "pending_requests": .int(requests.count)])
        }
        var parts: [String] = []
        if !requests.isEmpty { parts.append(SandboxWording.plural(requests.count, "pending request")) }
        if totalUnread > 0 { parts.append(SandboxWording.plural(totalUnread, "unread message")) }
        return .ok([
            "has_activity": .bool(!parts.isEmpty),
            "summary": .string(parts.isEmpty ? "No new DM activity" : "You have " + parts.joined(separator: " and ")),
            "requests": ["count": .int(requests.count), "items": .array(requests.map(dmRequestItem))],
            "messages": [
                "total_unread": .int(totalUnread), "conversations_with_unread": .int(withUnread.count),
                "latest": .array(
                    latest.map { conversation, message in
                        [
                            "conversation_id": .string(conversation.id), "message_id": .string(message.id),
                            "from": ["name": .optional(agents[message.senderID]?.name)],
                            "message_preview": .string(Self.preview(message.content)),
                            "created_at": .string(SandboxTime.iso(message.createdAt)),
                        ]
                    }),
            ],
        ])
    }

    /// `GET /agents/dm/requests`: pending requests to the agent, oldest first.
    func dmRequests(_ agentID: String) -> APIResult {
        .ok(["requests": .array(pendingRequests(to: agentID).map(dmRequestItem))])
    }

    private func pendingRequests(to agentID: String) -> [SandboxConversation] {
        inbox.conversations(of: agentID, status: .pending).filter { $0.recipientID == agentID }
    }

    /// A pending request as `check` and `requests` list it.
    private func dmRequestItem(_ conversation: SandboxConversation) -> JSON {
        var from: [String: JSON] = ["name": .optional(agents[conversation.initiatorID]?.name)]
        from["owner"] = agents[conversation.initiatorID].map(ownerJSON) ?? .null
        return [
            "conversation_id": .string(conversation.id), "from": .object(from),
            "message_preview": .string(Self.preview(conversation.messages.first?.content ?? "")),
            "created_at": .string(SandboxTime.iso(conversation.createdAt)),
        ]
    }

    /// `GET /agents/dm/conversations`: the agent's approved conversations, the latest message first.
    func dmConversations(_ agentID: String) -> APIResult {
        if config.dmShape == .inConversations { return dmConversationsWithRequests(agentID) }
        let mine = inbox.conversations(of: agentID, status: .approved).sorted {
            ($0.lastMessageAt, $0.seq) > ($1.lastMessageAt, $1.seq)
        }
        let items: [JSON] = mine.map { conversation in
            let other = agents[conversation.other(than: agentID)]
            return [
                "conversation_id": .string(conversation.id),
                "with_agent": [
                    "name": .optional(other?.name), "description": .optional(other?.description),
                    "karma": .int(karma(of: conversation.other(than: agentID))),
                    "owner": other.map(ownerJSON) ?? .null,
                ],
                "unread_count": .int(conversation.unreadCount(for: agentID)),
                "last_message_at": .string(SandboxTime.iso(conversation.lastMessageAt)),
                "you_initiated": .bool(conversation.initiatorID == agentID),
            ]
        }
        return .ok([
            "inbox": "main", "total_unread": .int(mine.reduce(0) { $0 + $1.unreadCount(for: agentID) }),
            "conversations": ["count": .int(items.count), "items": .array(items)],
        ])
    }

    /// `GET /agents/dm/conversations/ID`: every message, oldest first; **marks the other side's
    /// messages read** (a GET with a side effect, as on moltbook.com). `is_read` is as it was
    /// before this read (for the agent's own messages: whether the other side has opened them).
    mutating func dmConversation(_ agentID: String, id: String, now: Date) -> APIResult {
        guard let conversation = inbox.conversations[id], conversation.involves(agentID) else {
            return .notFound("Conversation not found")
        }
        if let refusal = notApproved(conversation) { return refusal }
        let messages: [JSON] = conversation.messages.map { message in
            [
                "id": .string(message.id), "sender": ["name": .optional(agents[message.senderID]?.name)],
                "content": .string(message.content), "created_at": .string(SandboxTime.iso(message.createdAt)),
                "is_read": .bool(message.readAt != nil), "needs_human_input": .bool(message.needsHumanInput),
            ]
        }
        for index in conversation.messages.indices
        where conversation.messages[index].senderID != agentID && conversation.messages[index].readAt == nil {
            inbox.conversations[id]?.messages[index].readAt = now
        }
        let other = conversation.other(than: agentID)
        return .ok([
            "conversation": [
                "conversation_id": .string(id), "with_agent": ["name": .optional(agents[other]?.name)],
                "you_initiated": .bool(conversation.initiatorID == agentID),
            ],
            "messages": .array(messages),
        ])
    }

    /// `dm_shape: in_conversations`: every live conversation of the agent, pending ones as
    /// `approved: false` (a request to the agent is one it did not start), the other agent as a
    /// plain name, ids as `id`; no counts object.
    private func dmConversationsWithRequests(_ agentID: String) -> APIResult {
        let live =
            inbox.conversations(of: agentID, status: .approved) + inbox.conversations(of: agentID, status: .pending)
        let items: [JSON] = live.sorted { ($0.lastMessageAt, $0.seq) > ($1.lastMessageAt, $1.seq) }.map {
            conversation in
            [
                "id": .string(conversation.id),
                "other_agent": .optional(agents[conversation.other(than: agentID)]?.name),
                "approved": .bool(conversation.status == .approved),
                "initiated_by_me": .bool(conversation.initiatorID == agentID),
                "unread": .int(conversation.status == .approved ? conversation.unreadCount(for: agentID) : 0),
                "last_message": .string(Self.preview(conversation.messages.last?.content ?? "")),
                "updated_at": .string(SandboxTime.iso(conversation.lastMessageAt)),
            ]
        }
        return .ok(["conversations": .array(items)])
    }

    /// `GET /agents/dm/conversations/ID/messages` (`dm_shape: in_conversations`): the messages,
    /// oldest first, senders as plain names; marks the other side's messages read.
    mutating func dmMessages(_ agentID: String, id: String, now: Date) -> APIResult {
        guard let conversation = inbox.conversations[id], conversation.involves(agentID) else {
            return .notFound("Conversation not found")
        }
        if let refusal = notApproved(conversation) { return refusal }
        let messages: [JSON] = conversation.messages.map { message in
            [
                "message_id": .string(message.id), "from": .optional(agents[message.senderID]?.name),
                "text": .string(message.content), "sent_at": .string(SandboxTime.iso(message.createdAt)),
            ]
        }
        for index in conversation.messages.indices
        where conversation.messages[index].senderID != agentID && conversation.messages[index].readAt == nil {
            inbox.conversations[id]?.messages[index].readAt = now
        }
        return .ok(["messages": .array(messages)])
    }

    /// The 403 of a conversation whose messages do not flow (pending, rejected, blocked), or nil.
    private func notApproved(_ conversation: SandboxConversation) -> APIResult? {
        switch conversation.status {
        case .approved:
            return nil
        case .pending:
            return .error(
                403, "This conversation has not been approved yet",
                hint: "Messages flow once the receiving agent (or its human) approves the request")
        case .rejected, .blocked:
            return .error(403, "This conversation was rejected", hint: "The other agent declined your request")
        }
    }

    // MARK: Writing

    /// `POST /agents/dm/request {to | to_owner, message}`: opens a pending conversation.
    mutating func requestDM(_ agentID: String, _ body: JSON?, now: Date) -> APIResult {
        if let refusal = claimRefusal(agentID) { return refusal }
        if let refusal = dmRefusal(agentID, now: now) { return rateLimited(refusal) }
        let recipientName = (body?["to"] ?? body?["recipient_name"])?.stringValue
        let ownerHandle = body?["to_owner"]?.stringValue.map { $0.hasPrefix("@") ? String($0.dropFirst()) : $0 }
        guard recipientName != nil || ownerHandle != nil, let message = body?["message"]?.stringValue else {
            return .badRequest("Missing required fields", hint: "Provide to (an agent name) and message")
        }
        guard (10...1_000).contains(message.count) else {
            return .badRequest("Invalid message", hint: "A request's message is 10-1000 characters")
        }
        let recipient =
            recipientName.flatMap { self.agentID(named: $0) }
            ?? ownerHandle.flatMap { handle in
                agents.values.first { $0.claimed && "owner_" + $0.name.lowercased() == handle.lowercased() }?.id
            }
        guard let recipient else { return .notFound("Bot not found", hint: "Check the agent's name") }
        guard recipient != agentID else { return .badRequest("You cannot message yourself") }
        if let existing = inbox.conversationByPair[SandboxConversation.pairKey(agentID, recipient)],
            let conversation = inbox.conversations[existing]
        {
            if conversation.status == .blocked, conversation.initiatorID == agentID {
                return .error(403, "This agent is not accepting requests from you")
            }
            if conversation.status != .blocked {
                return .error(
                    400, "Conversation already exists", hint: "Use the conversation you already have",
                    extra: [
                        "conversation_id": .string(conversation.id), "status": .string(conversation.status.rawValue),
                    ])
            }
        }
        agents[agentID]?.dmTimes.append(now)
        counters.dmRequests += 1
        let conversation = openConversation(from: agentID, to: recipient, message: message, at: now)
        simulationSawRequest(conversation, at: now)
        return .ok(
            [
                "message": "Chat request sent! 🦞", "conversation_id": .string(conversation.id),
                "status": .string(ConversationStatus.pending.rawValue),
            ], status: 201)
    }

    /// Creates a pending conversation whose first message is the request's, and tells the recipient.
    mutating func openConversation(from initiator: String, to recipient: String, message: String, at time: Date)
        -> SandboxConversation
    {
        let id = inboxRandom.uuid()
        let first = SandboxMessage(id: inboxRandom.uuid(), senderID: initiator, content: message, createdAt: time)
        let conversation = SandboxConversation(
            id: id, seq: takeInboxSeq(), initiatorID: initiator, recipientID: recipient, status: .pending,
            createdAt: time, messages: [first])
        inbox.add(conversation)
        let name = agents[initiator]?.name ?? "Someone"
        notify(
            recipient, .dmRequest, actor: initiator, conversation: id,
            content: "\(name) wants to start a conversation: \(Self.preview(message))", at: time)
        return conversation
    }

    /// `POST /agents/dm/requests/ID/approve` by the receiving agent.
    mutating func approveDM(_ agentID: String, id: String, now: Date) -> APIResult {
        if let refusal = claimRefusal(agentID) { return refusal }
        guard let conversation = inbox.conversations[id], conversation.recipientID == agentID else {
            return .notFound("Request not found")
        }
        return decide(conversation, approve: true, block: false, by: "agent", now: now)
    }

    /// `POST /agents/dm/requests/ID/reject {block?}` by the receiving agent.
    mutating func rejectDM(_ agentID: String, id: String, _ body: JSON?, now: Date) -> APIResult {
        if let refusal = claimRefusal(agentID) { return refusal }
        guard let conversation = inbox.conversations[id], conversation.recipientID == agentID else {
            return .notFound("Request not found")
        }
        return decide(conversation, approve: false, block: body?["block"]?.boolValue == true, by: "agent", now: now)
    }

    /// Approves or rejects a request, by the agent (`agent`) or its human (`human`). Approving an
    /// approved conversation answers success again; deciding a rejected one is 409.
    mutating func decide(_ conversation: SandboxConversation, approve: Bool, block: Bool, by: String, now: Date)
        -> APIResult
    {
        let id = conversation.id
        switch (conversation.status, approve) {
        case (.approved, true):
            return .ok([
                "message": "Request already approved", "conversation_id": .string(id), "status": "approved",
                "already_approved": true,
            ])
        case (.approved, false):
            return .badRequest("Conversation already approved", hint: "Approved conversations cannot be rejected")
        case (.rejected, _), (.blocked, _):
            return .error(409, "Request already rejected")
        case (.pending, _):
            break
        }
        let status: ConversationStatus = approve ? .approved : (block ? .blocked : .rejected)
        inbox.conversations[id]?.status = status
        inbox.conversations[id]?.decidedAt = now
        inbox.conversations[id]?.decidedBy = by
        if status == .rejected {
            inbox.conversationByPair[SandboxConversation.pairKey(conversation.initiatorID, conversation.recipientID)] =
                nil
        }
        counters.notificationsMarkedRead += inbox.markRead(of: conversation.recipientID, at: now) {
            $0.conversationID == id
        }
        if approve, let approved = inbox.conversations[id] { simulationSawApproval(approved, at: now) }
        return .ok([
            "message": .string(approve ? "Request approved! You can now chat. 🦞" : "Request rejected"),
            "conversation_id": .string(id), "status": .string(status.rawValue),
        ])
    }

    /// `POST /agents/dm/conversations/ID/send {message, needs_human_input?}`: only in approved conversations.
    mutating func sendDM(_ agentID: String, id: String, _ body: JSON?, now: Date) -> APIResult {
        if let refusal = claimRefusal(agentID) { return refusal }
        if let refusal = dmRefusal(agentID, now: now) { return rateLimited(refusal) }
        guard let conversation = inbox.conversations[id], conversation.involves(agentID) else {
            return .notFound("Conversation not found")
        }
        if let refusal = notApproved(conversation) { return refusal }
        guard let text = (body?["message"] ?? body?["content"])?.stringValue,
            !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        else {
            return .badRequest("Missing required fields", hint: "Provide message")
        }
        guard text.count <= 5_000 else {
            return .badRequest("Message too long", hint: "Messages are at most 5000 characters")
        }
        agents[agentID]?.dmTimes.append(now)
        counters.dmMessages += 1
        let message = SandboxMessage(
            id: inboxRandom.uuid(), senderID: agentID, content: text, createdAt: now,
            needsHumanInput: body?["needs_human_input"]?.boolValue == true)
        inbox.conversations[id]?.messages.append(message)
        simulationSawMessage(message, in: conversation, at: now)
        return .ok(
            [
                "message": [
                    "id": .string(message.id), "content": .string(text),
                    "created_at": .string(SandboxTime.iso(now)), "sender": ["name": .optional(agents[agentID]?.name)],
                    "needs_human_input": .bool(message.needsHumanInput),
                ],
                "conversation_id": .string(id),
            ], status: 201)
    }

    /// A sequence number for conversations (their order when they share an instant).
    mutating func takeInboxSeq() -> Int {
        inbox.nextSeq += 1
        return inbox.nextSeq
    }
}
