import Determinism
import Foundation

/// Registration, claim state, profiles and follows.
extension SandboxState {
    static let codeWords = ["reef", "lagoon", "tide", "shell", "claw", "kelp", "coral", "current", "molt", "brine"]

    /// Whether `name` is 2–32 ASCII letters, digits, `_` or `-`.
    static func isValidAgentName(_ name: String) -> Bool {
        (2...32).contains(name.count)
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }

    func agentID(named name: String) -> String? {
        agentIDByName[name.lowercased()]
    }

    /// `POST /agents/register {name, description}` (no auth).
    mutating func register(_ body: JSON?, now: Date) -> APIResult {
        guard let name = body?["name"]?.stringValue?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
            return .badRequest("Missing required fields", hint: "Provide name and description")
        }
        guard Self.isValidAgentName(name) else {
            return .badRequest(
                "Invalid agent name", hint: "Names are 2-32 characters: letters, digits, underscores and hyphens")
        }
        guard agentID(named: name) == nil else {
            return .error(409, "Agent name already taken", hint: "Pick a different name")
        }
        let description = body?["description"]?.stringValue ?? ""
        let agent = SandboxAgent(
            id: random.uuid(), name: name, description: description,
            apiKey: "moltbook_sk_" + random.token(32, alphabet: SeededRandom.urlSafe),
            claimToken: "moltbook_claim_" + random.token(32, alphabet: SeededRandom.urlSafe),
            verificationCode: random.pick(Self.codeWords) + "-" + random.token(4, alphabet: SeededRandom.upperAlnum),
            createdAt: now, lastActive: now, claimed: config.autoClaim)
        agents[agent.id] = agent
        agentIDByKey[agent.apiKey] = agent.id
        agentIDByName[name.lowercased()] = agent.id
        let claimURL = "https://www.moltbook.com/claim/" + agent.claimToken
        let agentJSON: JSON = [
            "id": .string(agent.id), "name": .string(name), "api_key": .string(agent.apiKey),
            "claim_url": .string(claimURL), "verification_code": .string(agent.verificationCode),
            "profile_url": .string("https://www.moltbook.com/u/" + name),
            "created_at": .string(SandboxTime.iso(now)),
        ]
        let setup: JSON = [
            "step_1": [
                "action": "SAVE YOUR API KEY", "details": "Store it somewhere safe. It is shown only once.",
                "critical": true,
            ],
            "step_2": [
                "action": "TELL YOUR HUMAN", "details": "Send them the claim_url.",
                "message_template":
                    .string("Claim me on Moltbook: \(claimURL) (code \(agent.verificationCode))"),
            ],
            "step_3": ["action": "WAIT FOR CLAIM", "details": "Poll GET /api/v1/agents/status until claimed."],
        ]
        return .ok(
            [
                "message": "Welcome to Moltbook! 🦞", "agent": agentJSON, "setup": setup,
                "status": agent.claimed ? "claimed" : "pending_claim",
                "tweet_template": .string(
                    "I'm claiming my AI agent \"\(name)\" on @moltbook 🦞 Verification: \(agent.verificationCode)"),
                "important": "⚠️ SAVE YOUR API KEY! You need it for all requests.",
            ], status: 201)
    }

    /// `GET /agents/status`.
    func status(_ agentID: String) -> APIResult {
        guard let agent = agents[agentID] else { return .notFound("Bot not found") }
        // The OSS server has no claim requirement here: every agent may act.
        if config.dialect == .oss { return .ok(["status": "claimed"]) }
        let message =
            agent.claimed
            ? "You're all set! Your human has claimed you. 🦞"
            : "Waiting for your human to claim you. Send them your claim_url."
        return .ok([
            "status": agent.claimed ? "claimed" : "pending_claim", "message": .string(message),
            "agent": ["id": .string(agent.id), "name": .string(agent.name)],
        ])
    }

    /// `GET /agents/me`.
    func me(_ agentID: String, now: Date) -> APIResult {
        guard let agent = agents[agentID] else { return .notFound("Bot not found") }
        if config.dialect == .oss {
            return .ok(["agent": .object(config.claimShape.render(ossAgentJSON(agent), claimed: agent.claimed))])
        }
        var fields = config.claimShape.render(agentPublicJSON(agent, viewer: nil), claimed: agent.claimed)
        fields["metadata"] = agent.metadata
        fields["stats"] = [
            "posts": .int((index.postsByAuthor[agentID] ?? []).filter { posts[$0.id]?.deleted == false }.count),
            "comments": .int(index.commentsByAuthor[agentID]?.count ?? 0),
            "subscriptions": .int(agent.subscriptions.count),
        ]
        return .ok(["agent": .object(fields)])
    }

    /// `PATCH /agents/me {description?, metadata?}`.
    mutating func updateMe(_ agentID: String, _ body: JSON?) -> APIResult {
        guard let fields = Self.object(body) else {
            return .badRequest("Invalid JSON body", hint: "Send {\"description\": …, \"metadata\": {…}}")
        }
        if let description = fields["description"] {
            guard let text = description.stringValue else { return .badRequest("description must be a string") }
            agents[agentID]?.description = text
        }
        if let metadata = fields["metadata"] {
            guard metadata.objectValue != nil || metadata == .null else {
                return .badRequest("metadata must be an object")
            }
            agents[agentID]?.metadata = metadata
        }
        guard let agent = agents[agentID] else { return .notFound("Bot not found") }
        var json = agentPublicJSON(agent, viewer: nil)
        json["metadata"] = agent.metadata
        return .ok(["message": "Profile updated", "agent": .object(json)])
    }

    /// `GET /agents/profile?name=NAME`.
    func profile(name: String?, viewer: String) -> APIResult {
        guard let name, !name.isEmpty else { return .badRequest("Missing name", hint: "Use ?name=AGENT_NAME") }
        guard let id = agentID(named: name), let agent = agents[id] else { return .notFound("Bot not found") }
        var fields = agentPublicJSON(agent, viewer: viewer)
        let own = (index.postsByAuthor[id] ?? []).reversed().compactMap { posts[$0.id] }
            .filter { !$0.deleted && isVisible($0.status) }
        let ownComments = (index.commentsByAuthor[id] ?? []).compactMap { comments[$0] }.filter { isVisible($0.status) }
            .sorted { ($0.createdAt, $0.seq) > ($1.createdAt, $1.seq) }
        fields["posts_count"] = .int(own.count)
        fields["comments_count"] = .int(ownComments.count)
        return .ok([
            "agent": .object(fields),
            "recentPosts": .array(own.prefix(10).map { .object(postJSON($0)) }),
            "recentComments": .array(ownComments.prefix(10).map { commentJSON($0, viewer: viewer) }),
        ])
    }

    /// `POST /agents/NAME/follow`.
    mutating func follow(_ agentID: String, name: String, now: Date) -> APIResult {
        if let refusal = claimRefusal(agentID) { return refusal }
        guard let targetID = self.agentID(named: name), let target = agents[targetID] else {
            return .notFound("Bot not found")
        }
        guard targetID != agentID else { return .badRequest("You cannot follow yourself") }
        let already = target.followers.contains(agentID)
        agents[targetID]?.followers.insert(agentID)
        agents[agentID]?.following.insert(targetID)
        return .ok([
            "action": already ? "already_following" : "followed",
            "message": .string(already ? "Already following \(target.name)" : "Now following \(target.name) 🦞"),
        ])
    }

    /// `DELETE /agents/NAME/follow`.
    mutating func unfollow(_ agentID: String, name: String, now: Date) -> APIResult {
        if let refusal = claimRefusal(agentID) { return refusal }
        guard let targetID = self.agentID(named: name), let target = agents[targetID] else {
            return .notFound("Bot not found")
        }
        let was = target.followers.contains(agentID)
        agents[targetID]?.followers.remove(agentID)
        agents[agentID]?.following.remove(targetID)
        return .ok([
            "action": was ? "unfollowed" : "not_following",
            "message": .string(was ? "Unfollowed \(target.name)" : "You were not following \(target.name)"),
        ])
    }

    /// The 403 an unclaimed agent gets on writes, or nil (sandbox decision; see docs/sandbox.md).
    /// The OSS dialect never requires a claim.
    mutating func claimRefusal(_ agentID: String) -> APIResult? {
        guard config.requireClaim, config.dialect.honoursClaim, let agent = agents[agentID], !agent.claimed else {
            return nil
        }
        counters.unclaimedWrites += 1
        return .error(
            403, "Agent not yet claimed",
            hint: "Your human must claim you first: https://www.moltbook.com/claim/\(agent.claimToken)")
    }
}
