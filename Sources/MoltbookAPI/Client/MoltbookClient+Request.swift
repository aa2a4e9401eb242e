import Foundation
import Logging

extension MoltbookClient {
    /// A request body.
    enum Body {
        case json(JSONValue)
        case multipart(Data, boundary: String)
    }

    /// Sends one call and returns the JSON body of a successful response.
    ///
    /// Errors: HTTP errors, `success:false` on a 2xx, 3xx (never followed), non-JSON bodies and
    /// transport failures all become `APIError`.
    func call(
        _ method: HTTPMethod, _ segments: [String], query: [(String, String?)] = [], body: Body? = nil,
        authenticated: Bool = true
    ) async throws(APIError) -> MoltbookResponse<JSONValue> {
        let endpoint = "\(method.rawValue) /" + segments.joined(separator: "/")
        // Asked first: a refused request is never built, so no byte of it (nor the key) moves.
        if let gate, let refusal = await gate(endpoint) { throw refusal }
        let url = makeURL(segments, query: query)
        var headers: HTTPHeaders = ["Accept": "application/json"]
        var payload: Data?
        switch body {
        case .json(let json)?:
            headers.add(name: "Content-Type", value: "application/json")
            payload = json.encoded()
        case .multipart(let data, let boundary)?:
            headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
            payload = data
        case nil:
            if method != .get { payload = Data() }
        }
        if authenticated {
            guard let apiKey, apiKey.isUsable else {
                throw APIError(code: .invalidKey, message: "no usable API key for this agent", endpoint: endpoint)
            }
            // Pinning, checked again at the last moment: the key goes to the base URL's host only.
            guard url.host?.lowercased() == baseURL.host?.lowercased() else {
                throw APIError(
                    code: .invalidRequest, message: "refusing to send the key to another host",
                    endpoint: endpoint)
            }
            apiKey.withRawValue { headers.add(name: "Authorization", value: "Bearer \($0)") }
        }
        let request = HTTPRequest(method: method, url: url, headers: headers, body: payload)
        let started = observer == nil ? nil : ContinuousClock.now
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as TransportError {
            observe(method, segments, started, status: nil, RateLimitHint())
            logger.warning("request failed", metadata: logMetadata(endpoint, extra: ["error": "\(error)"]))
            throw APIError(code: .transport, message: error.description, endpoint: endpoint, transport: error)
        } catch {
            observe(method, segments, started, status: nil, RateLimitHint())
            throw APIError(
                code: .transport, message: "transport failed: \(error)", endpoint: endpoint,
                transport: .other(code: 0, detail: "\(error)", requestSent: true))
        }
        logger.debug("request", metadata: logMetadata(endpoint, extra: ["status": "\(response.status)"]))
        do {
            let result = try interpret(response, endpoint: endpoint)
            observe(method, segments, started, status: response.status, result.rateLimit)
            return result
        } catch {
            observe(method, segments, started, status: response.status, error.rateLimit)
            throw error
        }
    }

    /// Tells the observer (if any) how a request sent at `started` ended.
    private func observe(
        _ method: HTTPMethod, _ segments: [String], _ started: ContinuousClock.Instant?, status: Int?,
        _ rateLimit: RateLimitHint
    ) {
        guard let observer, let started else { return }
        observer(
            RequestObservation(
                method: method, route: RequestObservation.route(of: segments), status: status,
                duration: ContinuousClock.now - started, rateLimit: rateLimit))
    }

    func interpret(_ response: HTTPResponse, endpoint: String) throws(APIError) -> MoltbookResponse<JSONValue> {
        let json = response.parsedBody ?? (try? JSONValue.parse(response.body))
        let hint = RateLimitHint.parse(headers: response.headers, body: json)
        if (300...399).contains(response.status) {
            let target = response.headers["Location"].flatMap { URL(string: $0)?.host } ?? "an unknown location"
            throw APIError(
                code: .redirectRefused,
                message: "the server redirected to \(target); redirects are never followed with the key — "
                    + "set the base URL to the final address (https://www.moltbook.com/api/v1)",
                endpoint: endpoint, status: response.status, rateLimit: hint)
        }
        // A challenge is never a refusal, whatever `success` says: one server answers a challenged
        // post with HTTP 200 and `success: false, verification_required: true` (moltbook-api.md §6.3).
        let failed = json.map { $0["success"]?.bool == false && !VerificationChallenge.isPresent(in: $0) } ?? false
        guard (200...299).contains(response.status), !failed else {
            throw APIError.classify(
                status: response.status, json: json, rawBody: response.body, endpoint: endpoint,
                rateLimit: hint)
        }
        guard let json else {
            throw APIError(
                code: .undecodable, message: "the response is not JSON", endpoint: endpoint,
                status: response.status, rateLimit: hint,
                bodyExcerpt: String(decoding: response.body.prefix(4096), as: UTF8.self))
        }
        return MoltbookResponse(
            value: json, status: response.status, rateLimit: hint,
            message: json["message"]?.string, challenge: VerificationChallenge.find(in: json, resourceKey: ""))
    }

    func makeURL(_ segments: [String], query: [(String, String?)]) -> URL {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        for segment in segments {
            text += "/" + Self.percentEncoded(segment)
        }
        let items = query.compactMap { name, value in value.map { (name, $0) } }
        if !items.isEmpty {
            text +=
                "?"
                + items.map { name, value in
                    "\(name)=\(Self.percentEncoded(value))"
                }.joined(separator: "&")
        }
        return URL(string: text)!
    }

    /// `text` with everything but RFC 3986's unreserved characters percent-encoded. Ids, names
    /// and sort keys are nearly always unreserved already: those skip Foundation's encoder.
    static func percentEncoded(_ text: String) -> String {
        let unreserved = text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                true
            default: false
            }
        }
        if unreserved { return text }
        return text.addingPercentEncoding(withAllowedCharacters: .moltbookPathSegment) ?? ""
    }

    func logMetadata(_ endpoint: String, extra: Logger.Metadata = [:]) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["endpoint": "\(endpoint)"]
        if let apiKey { metadata["key"] = "\(apiKey.fingerprint)" }
        return metadata.merging(extra) { $1 }
    }

    /// An error for a 2xx whose JSON lacks the expected payload.
    func shapeError(_ endpoint: String, _ what: String, _ response: MoltbookResponse<JSONValue>) -> APIError {
        APIError(
            code: .undecodable, message: "the response has no \(what)", endpoint: endpoint,
            status: response.status, rateLimit: response.rateLimit,
            bodyExcerpt: String(decoding: response.value.encoded().prefix(512), as: UTF8.self))
    }
}

extension CharacterSet {
    /// RFC 3986 unreserved characters: everything else in a path segment or query value is escaped.
    static let moltbookPathSegment = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
