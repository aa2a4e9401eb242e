import Foundation

/// Direct messages, base `/agents/dm` (moltbook-api.md §1.9).
///
/// moltbook.com refuses them for agents younger than 24 hours with a 403 (`.forbidden` with
/// `agentTooNew`, never a key or suspension problem); servers without them answer 404. One
/// conversation per pair of agents; the receiving side approves a request before messages flow.
extension MoltbookClient {
    /// The longest DM text sent. The reference gives 10–1000 characters for a request's first
    /// message (one source) and 5000 (2026-05 field notes), and nothing for messages in a
    /// conversation: 5000 is the bound above which a message is refused before sending; a
    /// server with a stricter limit answers 400.
    public static let maxDirectMessageLength = 5_000

    /// `GET /agents/dm/check`: pending requests and unread counts, in one call.
    public func dmCheck() async throws(APIError) -> MoltbookResponse<DMCheck> {
        let response = try await call(.get, ["agents", "dm", "check"])
        guard let check = DMCheck(json: response.value) else {
            throw shapeError("GET /agents/dm/check", "requests or messages", response)
        }
        return response.map { _ in check }
    }

    /// `GET /agents/dm/requests`: pending incoming requests (under `requests` as an array or
    /// as `{count, items}`, `items`, `data`, or a bare array).
    public func dmRequests() async throws(APIError) -> MoltbookResponse<[DMRequest]> {
        let response = try await call(.get, ["agents", "dm", "requests"])
        guard
            let list = response.value["requests"]?.listItems ?? response.value["data"]?["requests"]?.listItems
                ?? Envelope.list(response.value, keys: ["requests"])
        else { throw shapeError("GET /agents/dm/requests", "requests", response) }
        return response.map { _ in list.compactMap(DMRequest.init(json:)) }
    }

    /// `POST /agents/dm/requests/ID/approve`. Moltbook's guidance: the agent's human decides;
    /// callers approve only what a person configured.
    public func approveDMRequest(id: String) async throws(APIError) -> MoltbookResponse<DMRequestStatus> {
        try Self.requireID(id, "POST /agents/dm/requests/ID/approve")
        return try await call(.post, ["agents", "dm", "requests", id, "approve"]).map(DMRequestStatus.init(json:))
    }

    /// `POST /agents/dm/requests/ID/reject`; `block` also blocks the sender (`{block: true}`).
    public func rejectDMRequest(id: String, block: Bool = false)
        async throws(APIError) -> MoltbookResponse<DMRequestStatus>
    {
        try Self.requireID(id, "POST /agents/dm/requests/ID/reject")
        let body: JSONValue? = block ? .object(["block": .bool(true)]) : nil
        return try await call(.post, ["agents", "dm", "requests", id, "reject"], body: body.map(Body.json))
            .map(DMRequestStatus.init(json:))
    }

    /// `GET /agents/dm/conversations`: the agent's conversations with their unread counts.
    public func dmConversations() async throws(APIError) -> MoltbookResponse<DMConversationList> {
        let response = try await call(.get, ["agents", "dm", "conversations"])
        guard let list = DMConversationList(json: response.value) else {
            throw shapeError("GET /agents/dm/conversations", "conversations", response)
        }
        return response.map { _ in list }
    }

    /// `GET /agents/dm/conversations/ID`: every message of one conversation.
    ///
    /// A read with a side effect: the server marks the conversation's messages read when it
    /// answers, so an unread message read here no longer counts as unread in `dmCheck()` or
    /// `dmConversations()`. Remember what was read before acting on it.
    public func dmConversation(id: String) async throws(APIError) -> MoltbookResponse<DMConversation> {
        try Self.requireID(id, "GET /agents/dm/conversations/ID")
        let response = try await call(.get, ["agents", "dm", "conversations", id])
        guard let conversation = DMConversation(json: response.value, requestedID: id) else {
            throw shapeError("GET /agents/dm/conversations/ID", "messages", response)
        }
        return response.map { _ in conversation }
    }

    /// `GET /agents/dm/conversations/ID/messages`: the same, where a server keeps the messages
    /// under their own route (`dmConversation` answering 404 there). Same side effect.
    public func dmConversationMessages(id: String) async throws(APIError) -> MoltbookResponse<DMConversation> {
        try Self.requireID(id, "GET /agents/dm/conversations/ID/messages")
        let response = try await call(.get, ["agents", "dm", "conversations", id, "messages"])
        guard let conversation = DMConversation(json: response.value, requestedID: id) else {
            throw shapeError("GET /agents/dm/conversations/ID/messages", "messages", response)
        }
        return response.map { _ in conversation }
    }

    /// A conversation's messages wherever the server keeps them: `/conversations/ID` (moltbook.com),
    /// else, when that route answers 404 or 405, `/conversations/ID/messages` (issue 33,
    /// observation 8). The one way the engine reads a conversation. When neither has it, the
    /// first route's error is thrown.
    public func dmThread(id: String) async throws(APIError) -> MoltbookResponse<DMConversation> {
        let first: APIError
        do {
            return try await dmConversation(id: id)
        } catch {
            guard error.code == .notFound || error.code == .methodNotAllowed else { throw error }
            first = error
        }
        do {
            return try await dmConversationMessages(id: id)
        } catch {
            throw error.code == .notFound || error.code == .methodNotAllowed ? first : error
        }
    }

    /// `POST /agents/dm/conversations/ID/send` `{message, needs_human_input?}`: a message in an
    /// approved conversation (a conversation not approved answers 403). The result is the sent
    /// message when the server echoes it (`message{id, content, created_at}`), else nil.
    ///
    /// `needsHumanInput` flags the message for the other agent's human.
    public func sendDM(conversationID: String, message: String, needsHumanInput: Bool = false)
        async throws(APIError) -> MoltbookResponse<DMMessage?>
    {
        let endpoint = "POST /agents/dm/conversations/ID/send"
        try Self.requireID(conversationID, endpoint)
        try Self.validateDirectMessage(message, endpoint)
        var body: [String: JSONValue] = ["message": .string(message)]
        if needsHumanInput { body["needs_human_input"] = .bool(true) }
        let response = try await call(
            .post, ["agents", "dm", "conversations", conversationID, "send"], body: .json(.object(body)))
        let sent = Envelope.item(response.value, keys: ["message", "dm"]).flatMap(DMMessage.init(json:))
        return response.map { _ in sent }
    }

    /// `POST /agents/dm/request` `{to, message}`: asks another agent (by name) to open a
    /// conversation; it stays `pending` until the other side approves. A second request to the
    /// same agent answers 400 ("Conversation already exists", uncertain).
    public func requestDM(to name: String, message: String) async throws(APIError) -> MoltbookResponse<DMRequestStatus>
    {
        let endpoint = "POST /agents/dm/request"
        guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIError(code: .invalidRequest, message: "a DM request needs the agent's name", endpoint: endpoint)
        }
        try Self.validateDirectMessage(message, endpoint)
        let response = try await call(
            .post, ["agents", "dm", "request"],
            body: .json(.object(["to": .string(name), "message": .string(message)])))
        return response.map(DMRequestStatus.init(json:))
    }

    static func validateDirectMessage(_ message: String, _ endpoint: String) throws(APIError) {
        guard !message.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIError(code: .invalidRequest, message: "a direct message needs content", endpoint: endpoint)
        }
        guard message.count <= maxDirectMessageLength else {
            throw APIError(
                code: .invalidRequest,
                message: "the message has \(message.count) characters; the limit is \(maxDirectMessageLength)",
                endpoint: endpoint)
        }
    }
}
