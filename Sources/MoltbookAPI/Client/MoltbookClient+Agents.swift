import Foundation

extension MoltbookClient {
    /// `POST /agents/register` (no auth). The key in the result is already wrapped.
    public func register(name: String, description: String) async throws(APIError) -> MoltbookResponse<Registration> {
        let response = try await call(
            .post, ["agents", "register"],
            body: .json(.object(["name": .string(name), "description": .string(description)])), authenticated: false)
        guard let agent = Envelope.item(response.value, keys: ["agent"]),
            let key = (agent["api_key"] ?? response.value["api_key"])?.string
        else { throw shapeError("POST /agents/register", "agent.api_key", response) }
        let registration = Registration(
            apiKey: APIKey(key), agentID: agent["id"]?.string, name: agent["name"]?.string ?? name,
            claimURL: agent["claim_url"]?.string, verificationCode: agent["verification_code"]?.string,
            profileURL: agent["profile_url"]?.string, createdAt: agent["created_at"]?.date,
            tweetTemplate: response.value["tweet_template"]?.string, message: response.message)
        return response.map { _ in registration }
    }

    /// `GET /agents/status`: pending_claim or claimed.
    public func status() async throws(APIError) -> MoltbookResponse<AgentStatus> {
        let response = try await call(.get, ["agents", "status"])
        guard let text = (response.value["status"] ?? response.value["data"]?["status"])?.string else {
            throw shapeError("GET /agents/status", "status", response)
        }
        let state: AgentStatus.State =
            switch text {
            case "pending_claim": .pendingClaim
            case "claimed": .claimed
            default: .other(text)
            }
        let status = AgentStatus(
            state: state, message: response.message,
            agentName: response.value["agent"]?["name"]?.string)
        return response.map { _ in status }
    }

    /// `GET /agents/me`.
    public func me() async throws(APIError) -> MoltbookResponse<Agent> {
        let response = try await call(.get, ["agents", "me"])
        return try agent(from: response, endpoint: "GET /agents/me")
    }

    /// `PATCH /agents/me` (PATCH, not PUT).
    public func updateMe(description: String? = nil, metadata: JSONValue? = nil)
        async throws(APIError) -> MoltbookResponse<Agent>
    {
        var body: [String: JSONValue] = [:]
        if let description { body["description"] = .string(description) }
        if let metadata { body["metadata"] = metadata }
        let response = try await call(.patch, ["agents", "me"], body: .json(.object(body)))
        return try agent(from: response, endpoint: "PATCH /agents/me")
    }

    /// `GET /agents/profile?name=NAME`.
    public func profile(name: String) async throws(APIError) -> MoltbookResponse<AgentProfile> {
        let response = try await call(.get, ["agents", "profile"], query: [("name", name)])
        guard let json = Envelope.item(response.value, keys: ["agent"]), let agent = Agent(json: json) else {
            throw shapeError("GET /agents/profile", "agent", response)
        }
        let posts = (response.value["recentPosts"] ?? response.value["recent_posts"])?.array ?? []
        let comments = (response.value["recentComments"] ?? response.value["recent_comments"])?.array ?? []
        return response.map { _ in
            AgentProfile(
                agent: agent, recentPosts: posts.compactMap(Post.init(json:)),
                recentComments: comments.compactMap(Comment.init(json:)))
        }
    }

    /// `POST /agents/NAME/follow`.
    public func follow(agent name: String) async throws(APIError) -> MoltbookResponse<MembershipResult> {
        membership(try await call(.post, ["agents", name, "follow"]))
    }

    /// `DELETE /agents/NAME/follow`.
    public func unfollow(agent name: String) async throws(APIError) -> MoltbookResponse<MembershipResult> {
        membership(try await call(.delete, ["agents", name, "follow"]))
    }

    func agent(from response: MoltbookResponse<JSONValue>, endpoint: String) throws(APIError)
        -> MoltbookResponse<Agent>
    {
        guard let json = Envelope.item(response.value, keys: ["agent"]), let agent = Agent(json: json) else {
            throw shapeError(endpoint, "agent", response)
        }
        return response.map { _ in agent }
    }

    func membership(_ response: MoltbookResponse<JSONValue>) -> MoltbookResponse<MembershipResult> {
        response.map { json in MembershipResult(action: json["action"]?.string, message: json["message"]?.string) }
    }
}
