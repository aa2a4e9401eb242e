import Foundation
import MoltbookAPI

/// A client for an OpenAI-compatible chat-completions endpoint (`POST {baseURL}/chat/completions`):
/// OpenAI, Ollama, llama.cpp, vLLM and the like.
///
/// - https only, except plain http to loopback (127.0.0.0/8, `::1`, `localhost`); checked before any request.
/// - The key goes only in `Authorization: Bearer`, only to `baseURL`; a 3xx is refused, never followed.
/// - The answer is read up to `maxResponseBytes`; `choices[0].message.content` or, from older completions
///   servers, `choices[0].text`.
public struct ChatCompletionsClient: Sendable {
    public let baseURL: URL
    public let model: String
    public let timeout: Duration
    public let maxResponseBytes: Int
    private let key: APIKey?
    private let transport: any HTTPTransport

    /// The URL policy generators use: https, or http to a loopback address.
    public static let policy = URLPolicy(allowInsecureLoopback: true)

    public init(
        baseURL: URL, model: String, key: APIKey? = nil, transport: any HTTPTransport, timeout: Duration = .seconds(60),
        maxResponseBytes: Int = 1 << 20
    ) {
        self.baseURL = baseURL
        self.model = model
        self.key = key
        self.transport = transport
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
    }

    /// The endpoint: `{baseURL}/chat/completions`.
    public var endpoint: URL { baseURL.appendingPathComponent("chat").appendingPathComponent("completions") }

    private var host: String { baseURL.host ?? "(no host)" }

    /// Sends one chat completion (an optional system message, then `prompt` as the user message) and
    /// returns the assistant's text.
    public func complete(system: String?, prompt: String, temperature: Double? = nil, maxTokens: Int? = nil)
        async throws(GenerationError) -> String
    {
        let url = endpoint
        do {
            try Self.policy.check(url)
        } catch {
            if case .disallowedURL(let reason) = error { throw .insecureURL(reason: reason) }
            throw .insecureURL(reason: error.description)
        }
        var messages: [JSONValue] = []
        if let system { messages.append(["role": "system", "content": .string(system)]) }
        messages.append(["role": "user", "content": .string(prompt)])
        var body: [String: JSONValue] = ["model": .string(model), "messages": .array(messages)]
        if let temperature { body["temperature"] = .number(temperature) }
        if let maxTokens { body["max_tokens"] = .number(Double(maxTokens)) }
        var headers: HTTPHeaders = ["Content-Type": "application/json", "Accept": "application/json"]
        if let key { key.withRawValue { headers.add(name: "Authorization", value: "Bearer \($0)") } }
        let request = HTTPRequest(
            method: .post, url: url, headers: headers, body: JSONValue.object(body).encoded(), timeout: timeout)

        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as TransportError {
            throw map(error)
        } catch {
            throw .transferFailed(host: host, detail: "the transfer failed")
        }
        return try read(response)
    }

    private func read(_ response: HTTPResponse) throws(GenerationError) -> String {
        if response.body.count > maxResponseBytes { throw .oversizedAnswer(host: host, limit: maxResponseBytes) }
        switch response.status {
        case 200...299: break
        case 300...399:
            let target = response.headers["Location"].flatMap { URL(string: $0, relativeTo: baseURL)?.host }
            throw .redirectRefused(host: host, targetHost: target)
        case 401, 403:
            throw .unauthorized(host: host, status: response.status, message: message(response.body))
        case 429:
            let retryAfter = response.headers["Retry-After"].flatMap { Int(HTTPHeaders.trimmingOWS($0)) }
            throw .rateLimited(host: host, retryAfterSeconds: retryAfter)
        default:
            throw .httpStatus(host: host, status: response.status, message: message(response.body))
        }
        let json: JSONValue
        if let parsed = response.parsedBody {
            json = parsed
        } else {
            do {
                json = try JSONValue.parse(response.body)
            } catch {
                throw .malformedAnswer(host: host, detail: "the body is not JSON")
            }
        }
        guard let choices = json["choices"]?.array else {
            throw .malformedAnswer(host: host, detail: "no choices in the answer")
        }
        guard let first = choices.first else { throw .noText(host: host) }
        let text = first["message"]?["content"]?.string ?? first["text"]?.string
        guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw .noText(host: host)
        }
        return text
    }

    /// The server's short message: `error.message` (OpenAI), `error` as a string (Ollama), else a body excerpt;
    /// redacted, at most 200 characters.
    private func message(_ body: Data) -> String {
        let text: String
        if let json = try? JSONValue.parse(body) {
            text = json["error"]?["message"]?.string ?? json["error"]?.string ?? json["message"]?.string ?? ""
        } else {
            text = String(decoding: body.prefix(4096), as: UTF8.self)
        }
        var excerpt = Redactor.excerpt(text.trimmingCharacters(in: .whitespacesAndNewlines), limit: 200)
        if let key { key.withRawValue { excerpt = excerpt.replacingOccurrences(of: $0, with: "[redacted]") } }
        return excerpt
    }

    private func map(_ error: TransportError) -> GenerationError {
        switch error {
        case .disallowedURL(let reason): .insecureURL(reason: reason)
        case .connectFailed(let detail), .tlsFailed(let detail): .unreachable(host: host, detail: detail)
        case .timedOut: .timedOut(host: host, after: timeout)
        case .responseTooLarge: .oversizedAnswer(host: host, limit: maxResponseBytes)
        case .cancelled: .transferFailed(host: host, detail: "cancelled")
        case .connectionLost: .transferFailed(host: host, detail: "the connection was lost")
        case .other(_, let detail, _): .transferFailed(host: host, detail: detail)
        }
    }
}
