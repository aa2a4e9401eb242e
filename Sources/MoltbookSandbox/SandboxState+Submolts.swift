import Foundation

/// Creating, listing and subscribing to submolts.
extension SandboxState {
    /// Whether `name` is 2–30 of lowercase letters, digits, hyphens or underscores.
    static func isValidSubmoltName(_ name: String) -> Bool {
        (2...30).contains(name.count)
            && name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// `POST /submolts {name, display_name, description?, allow_crypto?}`.
    mutating func createSubmolt(_ agentID: String, _ body: JSON?, now: Date) -> APIResult {
        if let refusal = claimRefusal(agentID) { return refusal }
        if let refusal = submoltRefusal(agentID, now: now) { return rateLimited(refusal) }
        guard let name = body?["name"]?.stringValue, let displayName = body?["display_name"]?.stringValue,
            !displayName.isEmpty
        else {
            return .badRequest("Missing required fields", hint: "Provide name and display_name")
        }
        guard Self.isValidSubmoltName(name) else {
            return .badRequest("Invalid submolt name", hint: "2-30 characters: lowercase letters, digits and hyphens")
        }
        guard submolts[name] == nil else { return .error(409, "Submolt name already taken") }
        let id = random.uuid()
        let challenge = maybeIssueChallenge(agentID: agentID, target: .submolt, contentID: id, now: now)
        let submolt = SandboxSubmolt(
            id: id, seq: takeSeq(), name: name, displayName: displayName,
            description: body?["description"]?.stringValue ?? "",
            allowCrypto: body?["allow_crypto"]?.boolValue ?? false,
            createdAt: now, lastActivityAt: now, ownerID: agentID, subscribers: [agentID],
            status: challenge == nil ? .published : .pending)
        submolts[name] = submolt
        agents[agentID]?.subscriptions.insert(name)
        agents[agentID]?.submoltTimes.append(now)
        counters.submoltsCreated += 1
        if config.dialect == .minimalMock, let challenge { return Self.minimalMockChallenge(challenge) }
        var json = submoltJSON(submolt, viewer: agentID)
        var message: JSON = "Submolt created! 🦞"
        if let challenge {
            json["verification"] = Self.verificationJSON(challenge)
            message = "Submolt created! Complete the verification challenge within 30 seconds to publish it."
        }
        return .ok(["message": message, "submolt": .object(json)], status: 201)
    }

    /// `GET /submolts?limit&cursor` (alphabetical).
    func listSubmolts(_ agentID: String, _ query: [String: String]) -> APIResult {
        let visible = submolts.values.filter { isVisible($0.status) }.sorted { $0.name < $1.name }
        let limit = SandboxPagination.limit(query, default: 50, max: 100)
        guard let page = SandboxPagination.page(visible, id: \.id, limit: limit, cursor: query["cursor"]) else {
            return SandboxPagination.invalidCursor
        }
        return .ok([
            "submolts": .array(page.items.map { .object(submoltJSON($0, viewer: agentID)) }),
            "count": .int(page.items.count), "total": .int(visible.count), "has_more": .bool(page.hasMore),
            "next_cursor": .optional(page.nextCursor),
        ])
    }

    /// `GET /submolts/NAME`.
    func getSubmolt(_ agentID: String, name: String) -> APIResult {
        guard let submolt = submolts[name.lowercased()], isVisible(submolt.status) || submolt.ownerID == agentID else {
            return .notFound("Submolt not found")
        }
        return .ok(["submolt": .object(submoltJSON(submolt, viewer: agentID))])
    }

    /// `POST /submolts/NAME/subscribe`.
    mutating func subscribe(_ agentID: String, name: String, now: Date) -> APIResult {
        if let refusal = claimRefusal(agentID) { return refusal }
        let key = name.lowercased()
        guard let submolt = submolts[key], isVisible(submolt.status) else { return .notFound("Submolt not found") }
        let already = submolt.subscribers.contains(agentID)
        submolts[key]?.subscribers.insert(agentID)
        agents[agentID]?.subscriptions.insert(key)
        return .ok([
            "action": already ? "already_subscribed" : "subscribed",
            "message": .string(already ? "Already subscribed to m/\(key)" : "Subscribed to m/\(key) 🦞"),
        ])
    }

    /// `DELETE /submolts/NAME/subscribe`.
    mutating func unsubscribe(_ agentID: String, name: String, now: Date) -> APIResult {
        if let refusal = claimRefusal(agentID) { return refusal }
        let key = name.lowercased()
        guard let submolt = submolts[key] else { return .notFound("Submolt not found") }
        let was = submolt.subscribers.contains(agentID)
        submolts[key]?.subscribers.remove(agentID)
        agents[agentID]?.subscriptions.remove(key)
        return .ok([
            "action": was ? "unsubscribed" : "not_subscribed",
            "message": .string(was ? "Unsubscribed from m/\(key)" : "You were not subscribed to m/\(key)"),
        ])
    }
}
