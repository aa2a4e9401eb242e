import Foundation

/// The unauthenticated `/_sandbox/…` admin API.
extension SandboxState {
    mutating func admin(_ request: SandboxRequest, now: Date) -> APIResult {
        let segments = request.path.split(separator: "/").map(String.init).dropFirst()
        let method = request.method.rawValue
        switch (method, Array(segments)) {
        case ("POST", let s) where s.count == 3 && s[0] == "agents" && s[2] == "claim":
            return claimAgent(named: s[1])
        case ("POST", let s) where s.count == 3 && s[0] == "agents" && s[2] == "suspend":
            let seconds = JSON.parseOrNil(request.body)?["seconds"]?.intValue ?? 86_400
            return suspendAgent(named: s[1], seconds: seconds, now: now)
        case ("POST", let s) where s.count == 3 && s[0] == "agents" && s[2] == "age":
            return setAge(named: s[1], JSON.parseOrNil(request.body), now: now)
        case ("GET", ["notifications"]):
            return .ok(["notifications": .array(notificationList(agent: request.query["agent"]))])
        case ("GET", ["comments"]):
            return .ok(["comments": .array(commentList(post: request.query["post"], author: request.query["author"]))])
        case ("GET", ["dm", "conversations"]):
            return .ok(["conversations": .array(conversationList(agent: request.query["agent"]))])
        case ("POST", let s) where s.count == 4 && s[0] == "dm" && s[1] == "requests" && s[3] == "approve":
            guard let conversation = inbox.conversations[s[2]] else { return .notFound("Request not found") }
            return decide(conversation, approve: true, block: false, by: "human", now: now)
        case ("GET", ["simulation"]):
            return simulationSummary()
        case ("GET", ["config"]):
            return .ok(["config": Self.encodeJSON(config)])
        case ("POST", ["config"]):
            do {
                var updated = try config.updated(withJSON: request.body)
                if let added = JSON.parseOrNil(request.body)?["faults"], added != .null {
                    faults += updated.faults
                    updated.faults = config.faults
                }
                config = updated
                return .ok(["config": Self.encodeJSON(config)])
            } catch {
                return .badRequest("Invalid config", hint: "\(error)")
            }
        case ("GET", ["faults"]):
            return .ok(["faults": Self.encodeJSON(faults)])
        case ("POST", ["faults"]):
            guard let specs = Self.decodeFaults(request.body) else {
                return .badRequest("Invalid fault spec", hint: "Send a spec, an array of specs or {\"faults\": […]}")
            }
            faults += specs
            return .ok(["queued": .int(faults.count)])
        case ("DELETE", ["faults"]):
            faults.removeAll()
            return .ok(["queued": 0])
        case ("GET", ["counters"]):
            sweepAllChallenges(now: now)
            return .ok(Self.encodeJSON(counters).objectValue ?? [:])
        case ("GET", ["challenges"]):
            sweepAllChallenges(now: now)
            return .ok(["challenges": .array(challengeList())])
        case ("POST", ["reset"]):
            self = SandboxState(config: config, seed: seed)
            return .ok(["message": "Sandbox reset"])
        case ("POST", ["clock"]):
            return .error(
                501, "The clock belongs to the HTTP front", hint: "POST /_sandbox/clock to the running server")
        default:
            return .notFound("Unknown sandbox admin endpoint")
        }
    }

    /// Moves an agent from `pending_claim` to `claimed`.
    mutating func claimAgent(named name: String) -> APIResult {
        guard let id = agentID(named: name), let agent = agents[id] else { return .notFound("Bot not found") }
        agents[id]?.claimed = true
        return .ok(["agent": ["name": .string(agent.name), "status": "claimed"]])
    }

    /// Suspends an agent for `seconds` from `now`, as failed challenges would (one more offense).
    mutating func suspendAgent(named name: String, seconds: Int, now: Date) -> APIResult {
        guard let id = agentID(named: name), let agent = agents[id] else { return .notFound("Bot not found") }
        guard seconds > 0 else { return .badRequest("Invalid suspension", hint: "seconds must be positive") }
        agents[id]?.offenses += 1
        agents[id]?.suspendedUntil = now.addingTimeInterval(Double(seconds))
        agents[id]?.suspensionSeconds = seconds
        agents[id]?.suspensionCause = .verification
        counters.suspensions += 1
        return .ok([
            "agent": [
                "name": .string(agent.name),
                "suspended_until": .string(SandboxTime.iso(now.addingTimeInterval(Double(seconds)))),
            ]
        ])
    }

    /// Every challenge with its expected answer (for demos and client tests).
    func challengeList() -> [JSON] {
        challenges.values.sorted { ($0.expiresAt, $0.code) < ($1.expiresAt, $1.code) }.map { challenge in
            let state: String
            switch challenge.state {
            case .pending: state = "pending"
            case .verified: state = "verified"
            case .failed: state = "failed"
            case .expired: state = "expired"
            }
            return [
                "verification_code": .string(challenge.code), "agent": .optional(agents[challenge.agentID]?.name),
                "content_type": .string(challenge.target.rawValue), "content_id": .string(challenge.contentID),
                "challenge_text": .string(challenge.text),
                "answer": .string(SandboxDecimal.twoPlaces(challenge.answer)),
                "state": .string(state), "expires_at": .string(SandboxTime.iso(challenge.expiresAt)),
            ]
        }
    }

    static func decodeFaults(_ body: Data) -> [FaultSpec]? {
        let decoder = JSONDecoder()
        if let list = try? decoder.decode([FaultSpec].self, from: body) { return list }
        if let one = try? decoder.decode(FaultSpec.self, from: body) { return [one] }
        struct Wrapper: Decodable { var faults: [FaultSpec] }
        return (try? decoder.decode(Wrapper.self, from: body))?.faults
    }

    static func encodeJSON(_ value: some Encodable) -> JSON {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let data = try? encoder.encode(value), let json = JSON.parseOrNil(data) else { return .null }
        return json
    }
}
