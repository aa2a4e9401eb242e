import Foundation
import MoltbookAPI
import MoltbookSandbox

/// One decoded sandbox answer.
struct Answer {
    var status: Int
    var json: JSON
    var headers: HTTPHeaders
    var body: Data
    var reply: SandboxReply

    subscript(key: String) -> JSON? { json[key] }
}

/// A model plus a hand-driven clock, with shorthand for API calls.
final class SandboxDriver {
    let model: SandboxModel
    var now: Date

    static let t0 = Date(timeIntervalSince1970: 1_772_000_000)  // 2026-02-25T06:13:20Z

    init(config: SandboxConfig = SandboxConfig(), seed: UInt64 = 1, now: Date = SandboxDriver.t0) {
        self.model = SandboxModel(config: config, seed: seed)
        self.now = now
    }

    /// A driver whose limits are off and whose agents are past the new-agent period.
    static func relaxed(seed: UInt64 = 1) -> SandboxDriver {
        SandboxDriver(config: SandboxConfig(limits: .unlimited, newAgentPeriodSeconds: 0), seed: seed)
    }

    func advance(_ seconds: TimeInterval) { now = now.addingTimeInterval(seconds) }

    @discardableResult
    func call(
        _ method: HTTPMethod, _ path: String, key: String? = nil, json: JSON? = nil, query: [String: String] = [:],
        headers extra: HTTPHeaders = [:], body rawBody: Data? = nil
    ) -> Answer {
        var headers = extra
        if let key { headers.add(name: "Authorization", value: "Bearer \(key)") }
        if json != nil { headers.add(name: "Content-Type", value: "application/json") }
        let fullPath = path.hasPrefix("/_sandbox") ? path : "/api/v1" + path
        let request = SandboxRequest(
            method: method, path: fullPath, query: query, headers: headers,
            body: rawBody ?? json?.serialized() ?? Data())
        let reply = model.handle(request, now: now)
        return Answer(
            status: reply.response.status, json: JSON.parseOrNil(reply.response.body) ?? .null,
            headers: reply.response.headers, body: reply.response.body, reply: reply)
    }

    /// Registers an agent (claimed unless told otherwise) and returns its API key.
    func agent(_ name: String, claimed: Bool = true) -> String {
        let answer = call(.post, "/agents/register", json: ["name": .string(name), "description": "test agent"])
        if claimed { model.claim(agentNamed: name) }
        return answer["agent"]?["api_key"]?.stringValue ?? ""
    }

    /// Creates a post and returns its id.
    func post(_ key: String, title: String = "Hello reef", content: String = "First light", submolt: String = "general")
        -> String
    {
        let answer = call(
            .post, "/posts", key: key,
            json: ["submolt_name": .string(submolt), "title": .string(title), "content": .string(content)])
        return answer["post"]?["id"]?.stringValue ?? ""
    }

    /// Creates a comment and returns its id.
    func comment(_ key: String, on postID: String, _ content: String, parent: String? = nil) -> String {
        var body: [String: JSON] = ["content": .string(content)]
        if let parent { body["parent_id"] = .string(parent) }
        return call(.post, "/posts/\(postID)/comments", key: key, json: .object(body))["comment"]?["id"]?.stringValue
            ?? ""
    }
}
