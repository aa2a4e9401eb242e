import Foundation
import Logging
import MoltbookAPI
import MoltipassEngine

/// The scripted scenario behind `moltipass demo`: registers an agent on a sandbox, has it
/// claimed, and drives one of each kind of call through the real client, reporting each step.
///
/// It refuses any base URL that is not loopback: the demo registers agents and must never
/// touch the real Moltbook.
public struct DemoScenario: Sendable {
    /// One line of the report.
    public struct Step: Sendable, Equatable, Encodable {
        public var name: String
        public var detail: String
    }

    /// `demo --json`: the steps done, and whether the scenario got to its end (README, "The two commands").
    public struct Report: Sendable, Equatable, Encodable {
        /// The sandbox API base URL.
        public var sandbox: String
        /// The demo agent's name.
        public var agent: String
        /// Whether every step ran; false when one failed (its error is on stderr).
        public var finished: Bool
        public var steps: [Step]

        public init(sandbox: String, agent: String, finished: Bool, steps: [Step]) {
            self.sandbox = sandbox
            self.agent = agent
            self.finished = finished
            self.steps = steps
        }
    }

    public let baseURL: URL
    public let transport: any HTTPTransport
    public let logger: Logger

    public init(baseURL: URL, transport: any HTTPTransport, logger: Logger) throws {
        guard let host = baseURL.host, URLPolicy.isLoopback(host: host) else {
            throw APIError(
                code: .invalidRequest,
                message: "the demo only runs against a loopback sandbox (start one with moltbook-sandbox)",
                endpoint: "demo")
        }
        self.baseURL = baseURL
        self.transport = transport
        self.logger = logger
    }

    /// Runs the scenario; `report` is called after each step.
    public func run(agentName: String, report: (Step) -> Void) async throws {
        let anonymous = try MoltbookClient(
            baseURL: baseURL, apiKey: nil, transport: transport, allowLoopback: true,
            logger: logger)
        let registration = try await anonymous.register(name: agentName, description: "Moltipass demo agent").value
        report(
            Step(
                name: "register",
                detail: "\(registration.name) key \(registration.apiKey.fingerprint), "
                    + "claim code \(registration.verificationCode ?? "?")"))
        let client = anonymous.with(apiKey: registration.apiKey)
        report(Step(name: "status", detail: "\(try await client.status().value.state)"))
        try await claimOnSandbox(agentName)
        report(
            Step(
                name: "claim",
                detail: "sandbox admin marked \(agentName) claimed; status "
                    + "\(try await client.status().value.state)"))

        let subscribed = try await client.subscribe(submolt: "general").value
        report(Step(name: "subscribe", detail: "m/general: \(subscribed.action ?? "ok")"))
        let response = try await client.createPost(
            .text(submolt: "general", title: "Hello from Moltipass", content: "A headless runner says hi. 🦞")
        ).value
        guard let post = response.item else {
            throw APIError(
                code: .undecodable, message: "the sandbox sent a challenge without the post", endpoint: "POST /posts")
        }
        let created = (item: post, challenge: response.challenge)
        report(
            Step(
                name: "post",
                detail: "\(created.item.id)"
                    + (created.challenge.map { " (verification challenge \($0.code))" } ?? "")))
        let comment = try await client.createComment(postID: created.item.id, content: "First!").value
        report(Step(name: "comment", detail: "\(comment.item?.id ?? "?") on \(created.item.id)"))

        let other = try await anonymous.register(name: agentName + "_peer", description: "demo peer").value
        try await claimOnSandbox(agentName + "_peer")
        let peer = anonymous.with(apiKey: other.apiKey)
        let vote = try await peer.upvotePost(id: created.item.id).value
        report(Step(name: "vote", detail: "peer upvoted: action \(vote.action)"))
        let again = try await peer.upvotePost(id: created.item.id).value
        report(
            Step(
                name: "vote again",
                detail: "action \(again.action) — votes toggle, which is why Moltipass never re-sends one"))
        let follow = try await peer.follow(agent: agentName).value
        report(Step(name: "follow", detail: "peer follows \(agentName): \(follow.action ?? "ok")"))

        var refusal: APIError?
        do {
            _ = try await client.createPost(.text(submolt: "general", title: "Too soon", content: "Second post"))
        } catch {
            refusal = error
        }
        switch refusal {
        case nil:
            report(Step(name: "second post", detail: "accepted (sandbox limits are loose)"))
        case let error? where error.code == .rateLimited:
            let wait = error.rateLimit.retryWait(now: Date()).map { "\(Int($0)) s" } ?? "unknown"
            report(Step(name: "second post", detail: "429 as expected; server says wait \(wait)"))
        case let error?:
            throw error
        }
        let feed = try await client.posts(sort: .new, limit: 5).value
        report(Step(name: "feed", detail: "\(feed.items.count) post(s), newest \"\(feed.items.first?.title ?? "-")\""))
    }

    private func claimOnSandbox(_ name: String) async throws {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)!
        components.path = "/_sandbox/agents/\(name)/claim"
        let response = try await transport.send(HTTPRequest(method: .post, url: components.url!, body: Data()))
        guard (200...299).contains(response.status) else {
            throw APIError(
                code: .badRequest, message: "the sandbox refused to claim \(name)", endpoint: "sandbox claim",
                status: response.status)
        }
    }
}
