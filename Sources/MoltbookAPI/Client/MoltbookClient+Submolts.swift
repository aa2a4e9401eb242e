import Foundation

extension MoltbookClient {
    /// `GET /submolts`.
    public func submolts(limit: Int? = nil, cursor: String? = nil, sort: String? = nil)
        async throws(APIError) -> MoltbookResponse<Page<Submolt>>
    {
        let response = try await call(
            .get, ["submolts"], query: [("limit", limit.map(String.init)), ("cursor", cursor), ("sort", sort)])
        return try page(response, keys: ["submolts"], endpoint: "GET /submolts", decode: Submolt.init(json:))
    }

    /// `GET /submolts/NAME`.
    public func submolt(_ name: String) async throws(APIError) -> MoltbookResponse<Submolt> {
        let response = try await call(.get, ["submolts", name])
        guard let json = Envelope.item(response.value, keys: ["submolt"]), let submolt = Submolt(json: json) else {
            throw shapeError("GET /submolts/NAME", "submolt", response)
        }
        return response.map { _ in submolt }
    }

    /// `POST /submolts`. May come back with a 30-second challenge.
    public func createSubmolt(_ submolt: NewSubmolt) async throws(APIError) -> MoltbookResponse<Created<Submolt>> {
        var body: [String: JSONValue] = [
            "name": .string(submolt.name), "display_name": .string(submolt.displayName),
            "allow_crypto": .bool(submolt.allowCrypto),
        ]
        if let description = submolt.description { body["description"] = .string(description) }
        let response = try await call(.post, ["submolts"], body: .json(.object(body)))
        return try created(response, key: "submolt", endpoint: "POST /submolts", decode: Submolt.init(json:))
    }

    /// `POST /submolts/NAME/subscribe`.
    public func subscribe(submolt name: String) async throws(APIError) -> MoltbookResponse<MembershipResult> {
        membership(try await call(.post, ["submolts", name, "subscribe"]))
    }

    /// `DELETE /submolts/NAME/subscribe` (unsubscribe is a DELETE on the same path).
    public func unsubscribe(submolt name: String) async throws(APIError) -> MoltbookResponse<MembershipResult> {
        membership(try await call(.delete, ["submolts", name, "subscribe"]))
    }

    /// `GET /search` (semantic since 1.9; treat as optional, it has failed for long stretches).
    public func search(_ query: String, type: SearchType = .all, limit: Int? = nil, cursor: String? = nil)
        async throws(APIError) -> MoltbookResponse<Page<SearchResult>>
    {
        let response = try await call(
            .get, ["search"],
            query: [("q", query), ("type", type.rawValue), ("limit", limit.map(String.init)), ("cursor", cursor)])
        // Semantic search answers `results` (posts and comments, typed); keyword search (1.8, the
        // open-source server) answers `posts` (and `comments`) keyed by kind.
        if let comments = response.value["comments"]?.array, response.value["results"] == nil {
            let posts = (Envelope.list(response.value, keys: ["posts"]) ?? []).compactMap {
                SearchResult(json: $0)
            }
            let found = posts + comments.compactMap { SearchResult(json: $0, defaultType: "comment") }
            let (hasMore, cursor) = Envelope.pagination(response.value)
            return response.map { _ in Page(items: found, hasMore: hasMore, nextCursor: cursor) }
        }
        return try page(
            response, keys: ["results", "posts"], endpoint: "GET /search", decode: { SearchResult(json: $0) })
    }

    /// `POST /verify` (or the route the challenge named: `answerPath`). A wrong answer returns
    /// `.incorrect`; 404/409/410 throw (`notFound`, `conflict` "Already answered", `expired`).
    /// The answer is sent as given: format it with two decimals (`"15.00"`).
    ///
    /// moltbook.com reads `verification_code`; servers whose challenges carry a plain `code`
    /// read that: the body names the code both ways on those routes.
    public func verify(code: String, answer: String, answerPath: String = VerificationChallenge.defaultAnswerPath)
        async throws(APIError) -> MoltbookResponse<VerificationOutcome>
    {
        var body: [String: JSONValue] = ["verification_code": .string(code), "answer": .string(answer)]
        if answerPath != VerificationChallenge.defaultAnswerPath { body["code"] = .string(code) }
        let segments = answerPath.split(separator: "/").map(String.init)
        do {
            let response = try await call(.post, segments.isEmpty ? ["verify"] : segments, body: .json(.object(body)))
            return response.map { json in
                .verified(
                    contentType: json["content_type"]?.string, contentID: json["content_id"]?.string,
                    message: json["message"]?.string)
            }
        } catch  where [.badRequest, .unrecognized].contains(error.code) && Self.saysIncorrect(error) {
            let outcome = VerificationOutcome.incorrect(contentType: nil, contentID: nil, hint: error.serverHint)
            return MoltbookResponse(
                value: outcome, status: error.status ?? 400, rateLimit: error.rateLimit,
                message: error.serverError)
        }
    }

    /// Whether a refused answer says the answer was wrong ("Incorrect answer", "Wrong answer").
    static func saysIncorrect(_ error: APIError) -> Bool {
        let text = [error.serverError, error.serverHint].compactMap { $0 }.joined(separator: " ").lowercased()
        return text.contains("incorrect") || text.contains("wrong answer")
    }
}
