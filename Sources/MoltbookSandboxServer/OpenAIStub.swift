import FlyingFox
import Foundation
import MoltbookAPI
import Synchronization

private typealias JSONValue = MoltbookAPI.JSONValue

/// An OpenAI-compatible chat-completions fake for generator tests (issue 21), served by `SandboxServer`
/// under `/openai/` when enabled (`moltbook-sandbox --openai`).
///
/// `POST /openai/v1/chat/completions` answers with a deterministic text made from the last user message
/// and the model. Models named for a fault play it out: `slow-N`, `fail-500`, `fail-429`, `oversized`,
/// `malformed`, `empty`, `secret`, `redirect`. `GET /openai/_counters` returns the calls per model;
/// `GET /openai/_calls` every call in order: its model, a hash of its user prompt and when it arrived (Unix
/// seconds), so a test counts the generations of each write and tells a retry after a kill from a repeat.
public final class OpenAIStub: Sendable {
    /// The bearer key requests must carry; nil accepts any request.
    let key: String?
    private let calls = Mutex<[String: Int]>([:])
    private let log = Mutex<[Call]>([])

    /// One chat-completion request: the model, the user prompt's hash, and when it arrived.
    public struct Call: Sendable, Equatable {
        public var model: String
        public var promptHash: String
        public var receivedAt: Double
    }

    /// Every completion request so far, in arrival order.
    public var callLog: [Call] { log.withLock { $0 } }

    public init(key: String? = nil) {
        self.key = key
    }

    /// Calls per model so far (including refused and faulty ones), plus `_redirect_target` for requests
    /// that followed a `redirect` answer.
    public var counters: [String: Int] { calls.withLock { $0 } }

    func handle(_ request: FlyingFox.HTTPRequest, body: Data, authority: String?) async throws
        -> FlyingFox.HTTPResponse
    {
        switch request.path {
        case "/openai/_counters":
            let object: [String: JSONValue] = counters.mapValues { .number(Double($0)) }
            return Self.json(200, .object(object))
        case "/openai/_calls":
            let entries: [JSONValue] = callLog.map {
                [
                    "model": .string($0.model), "prompt_hash": .string($0.promptHash),
                    "received_at": .number($0.receivedAt),
                ]
            }
            return Self.json(200, .array(entries))
        case "/openai/_redirect_target":
            calls.withLock { $0["_redirect_target", default: 0] += 1 }
            return Self.json(404, ["error": ["message": "nothing here"]])
        case "/openai/v1/chat/completions":
            guard request.method == .POST else {
                return Self.json(405, ["error": ["message": "use POST"]])
            }
            return try await completion(request, body: body, authority: authority)
        default:
            return Self.json(404, ["error": ["message": "unknown path \(request.path)"]])
        }
    }

    private func completion(_ request: FlyingFox.HTTPRequest, body: Data, authority: String?) async throws
        -> FlyingFox.HTTPResponse
    {
        guard let json = try? JSONValue.parse(body), let model = json["model"]?.string,
            let messages = json["messages"]?.array
        else {
            return Self.json(400, ["error": ["message": "expected {model, messages:[{role, content}]}"]])
        }
        calls.withLock { $0[model, default: 0] += 1 }
        if let key, request.headers[HTTPHeader("Authorization")] != "Bearer \(key)" {
            return Self.json(
                401, ["error": ["message": "Incorrect API key provided", "type": "invalid_request_error"]])
        }
        let prompt = messages.last { $0["role"]?.string == "user" }?["content"]?.string ?? ""
        let system = messages.first { $0["role"]?.string == "system" }?["content"]?.string
        var content = Self.text(prompt: prompt, system: system, model: model)
        let call = Call(model: model, promptHash: Self.hash(prompt).hex, receivedAt: Date().timeIntervalSince1970)
        log.withLock { $0.append(call) }
        if model.hasPrefix("slow-"), let seconds = Int(model.dropFirst(5)) {
            try await Task.sleep(for: .seconds(seconds))
        }
        switch model {
        case "fail-500":
            return Self.json(500, ["error": ["message": "the model crashed", "type": "server_error"]])
        case "fail-429":
            var response = Self.json(429, ["error": ["message": "Rate limit reached", "type": "rate_limit"]])
            response.headers[HTTPHeader("Retry-After")] = "7"
            return response
        case "malformed":
            return FlyingFox.HTTPResponse(
                statusCode: .ok, headers: [.contentType: "application/json"], body: Data(#"{"choices":[{"mess"#.utf8))
        case "redirect":
            let host = authority.map { $0.replacingOccurrences(of: "127.0.0.1", with: "localhost") } ?? "localhost"
            return FlyingFox.HTTPResponse(
                statusCode: HTTPStatusCode(302, phrase: "Found"),
                headers: [.location: "http://\(host)/openai/_redirect_target"], body: Data())
        case "empty": content = ""
        // 200 KB: past a client cap set low for it (a large body held a server task for seconds on a loaded run).
        case "oversized": content = String(repeating: "blah ", count: 40_000)
        case "secret":
            let tail = String(Self.hash(prompt + "secret").hex.prefix(16)) + Self.hash(model).hex
            content += " Use moltbook_sk_" + tail
        default: break
        }
        let promptWords = prompt.split(separator: " ").count
        let contentWords = content.split(separator: " ").count
        let message: JSONValue = ["role": "assistant", "content": .string(content)]
        let choice: JSONValue = ["index": 0, "message": message, "finish_reason": "stop"]
        let usage: JSONValue = [
            "prompt_tokens": .number(Double(promptWords)), "completion_tokens": .number(Double(contentWords)),
            "total_tokens": .number(Double(promptWords + contentWords)),
        ]
        let answer: JSONValue = [
            "id": .string("chatcmpl-" + Self.hash(model + "\n" + prompt).hex), "object": "chat.completion",
            "created": 1_767_225_600, "model": .string(model), "choices": [choice], "usage": usage,
        ]
        return Self.json(200, answer)
    }

    /// `Generated by MODEL for prompt HASH (N characters).`, plus whether a system message came.
    static func text(prompt: String, system: String?, model: String) -> String {
        let hash = hash(prompt).hex
        let systemNote = system.map { " under system \(Self.hash($0).hex.prefix(8))" } ?? ""
        return "Generated by \(model) for prompt \(hash) (\(prompt.count) characters)\(systemNote)."
    }

    /// FNV-1a, 64 bits: stable across runs and platforms.
    static func hash(_ text: String) -> UInt64 {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value &*= 0x100_0000_01b3
        }
        return value
    }

    private static func json(_ status: Int, _ body: JSONValue) -> FlyingFox.HTTPResponse {
        FlyingFox.HTTPResponse(
            statusCode: HTTPStatusCode(status, phrase: SandboxHTTPHandler.phrase(status)),
            headers: [.contentType: "application/json"], body: body.encoded())
    }
}

extension UInt64 {
    fileprivate var hex: String {
        let digits = String(self, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
