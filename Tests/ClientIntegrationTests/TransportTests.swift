import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltbookSandboxServer
import MoltipassTesting
import Testing

/// libcurl behaviour that matters for safety: no redirects, URL policy, timeouts, broken
/// connections, connection reuse, cancellation.
@Suite("CurlTransport over loopback")
struct TransportTests {
    /// A 301 is not followed: the client refuses it and the redirect target never sees a request.
    @Test func redirectNotFollowed() async throws {
        let origin = try await SandboxHarness.start()
        let target = try await SandboxHarness.start()
        defer {
            Task {
                await origin.stop(); await target.stop()
            }
        }
        let key = try await origin.registeredAgent("redirected")
        let location = target.baseURL.appendingPathComponent("agents/me").absoluteString
        try await origin.admin(
            .post, "faults",
            json: .array([
                .object([
                    "mode": .string("redirect"), "location": .string(location), "count": .number(1),
                ])
            ]))
        let error = try #require(await apiError { try await origin.client(key: key).me() })
        #expect(error.code == .redirectRefused)
        #expect(error.status == 301)
        #expect(target.model.counters().requestsTotal == 0)
        #expect(target.model.counters().authFailures == 0)
    }

    /// Plain http to loopback needs explicit permission; http elsewhere is never allowed.
    @Test func urlPolicy() async throws {
        let sandbox = try await SandboxHarness.start()
        defer { Task { await sandbox.stop() } }
        let strict = try CurlTransport()
        let request = HTTPRequest(method: .get, url: sandbox.baseURL.appendingPathComponent("posts"))
        await #expect(throws: TransportError.self) { try await strict.send(request) }
        let lenient = try CurlTransport(configuration: .init(policy: URLPolicy(allowInsecureLoopback: true)))
        await #expect(throws: TransportError.self) {
            try await lenient.send(HTTPRequest(method: .get, url: URL(string: "http://192.0.2.1/api/v1/posts")!))
        }
        #expect(sandbox.model.counters().requestsTotal == 0)
        #expect(try await lenient.send(request).status == 401)
    }

    /// A delay past the client timeout is a timeout after sending: the outcome is unknown.
    @Test func timeoutAfterSend() async throws {
        let sandbox = try await SandboxHarness.start()
        defer { Task { await sandbox.stop() } }
        let key = try await sandbox.registeredAgent("slowpoke")
        // Set-up goes through the harness's patient transport; only the delayed call is short.
        let short = try CurlTransport(
            configuration: .init(totalTimeout: .seconds(1), policy: URLPolicy(allowInsecureLoopback: true)))
        let client = try MoltbookClient(baseURL: sandbox.baseURL, apiKey: key, transport: short, allowLoopback: true)
        try await sandbox.admin(
            .post, "faults",
            json: .array([
                .object([
                    "mode": .string("delay"), "delay_seconds": .number(4), "count": .number(1),
                ])
            ]))
        let error = try #require(await apiError { try await client.me() })
        #expect(error.code == .transport)
        #expect(error.transport == .timedOut(requestSent: true))
        #expect(error.outcomeUnknown)
    }

    /// A connection dropped mid-response is a lost connection after sending (outcome unknown);
    /// dropped before the effect, the sandbox applied nothing.
    @Test func droppedConnections() async throws {
        let sandbox = try await SandboxHarness.start(
            config: SandboxConfig(limits: .unlimited, newAgentPeriodSeconds: 0))
        defer { Task { await sandbox.stop() } }
        let client = try sandbox.client(key: try await sandbox.registeredAgent("dropper"))
        try await sandbox.admin(
            .post, "faults",
            json: .array([
                .object([
                    "mode": .string("drop"), "path_prefix": .string("/api/v1/posts"), "method": .string("POST"),
                    "count": .number(1),
                ])
            ]))
        let error = try #require(
            await apiError {
                try await client.createPost(.text(submolt: "general", title: "Lost answer", content: "x"))
            })
        #expect(error.code == .transport)
        #expect(error.outcomeUnknown)
        // The effect was applied: reading back finds the post.
        #expect(try await client.posts(sort: .new).value.items.map(\.title) == ["Lost answer"])
    }

    /// 5xx, HTML pages and malformed JSON map to their codes.
    @Test(arguments: [
        ("http503", APIError.Code.serverError), ("html_error", .forbidden), ("malformed_json", .undecodable),
    ])
    func faultCodes(mode: String, code: APIError.Code) async throws {
        let sandbox = try await SandboxHarness.start()
        defer { Task { await sandbox.stop() } }
        let client = try sandbox.client(key: try await sandbox.registeredAgent("faulty"))
        try await sandbox.admin(.post, "faults", json: .array([.object(["mode": .string(mode), "count": .number(1)])]))
        let error = try #require(await apiError { try await client.me() })
        #expect(error.code == code)
        #expect(try await client.me().value.name == "faulty")
    }

    /// The 401 wave hits writes while reads still work.
    @Test func authWave() async throws {
        let sandbox = try await SandboxHarness.start()
        defer { Task { await sandbox.stop() } }
        let client = try sandbox.client(key: try await sandbox.registeredAgent("waved"))
        try await sandbox.admin(
            .post, "faults",
            json: .array([
                .object([
                    "mode": .string("auth_wave"), "count": .number(2),
                ])
            ]))
        #expect(await apiError { try await client.subscribe(submolt: "general") }?.code == .authenticationRequired)
        #expect(try await client.me().value.name == "waved")
    }

    /// Sequential requests reuse one connection (keep-alive through the share handle).
    @Test func connectionReuse() async throws {
        let sandbox = try await SandboxHarness.start()
        defer { Task { await sandbox.stop() } }
        let client = try sandbox.client(key: try await sandbox.registeredAgent("reuser"))
        let before = sandbox.transport.statistics
        for _ in 0..<10 { _ = try await client.me() }
        let after = sandbox.transport.statistics
        #expect(after.transfers - before.transfers == 10)
        #expect(after.newConnections - before.newConnections <= 1)
    }

    /// Cancelling the calling task aborts the transfer promptly.
    @Test func cancellation() async throws {
        let sandbox = try await SandboxHarness.start()
        defer { Task { await sandbox.stop() } }
        let client = try sandbox.client(key: try await sandbox.registeredAgent("canceller"))
        try await sandbox.admin(
            .post, "faults",
            json: .array([
                .object([
                    "mode": .string("delay"), "delay_seconds": .number(5), "count": .number(1),
                ])
            ]))
        let task = Task { try await client.me() }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let result = await task.result
        guard case .failure(let error as APIError) = result else {
            Issue.record("expected a cancelled transfer, got \(result)")
            return
        }
        #expect(error.transport == .cancelled(requestSent: true))
    }

    /// Header values with CR/LF are refused (no header injection).
    @Test func headerInjection() async throws {
        let transport = try CurlTransport(configuration: .init(policy: URLPolicy(allowInsecureLoopback: true)))
        let request = HTTPRequest(
            method: .get, url: URL(string: "http://127.0.0.1:9/x")!,
            headers: ["X-Test": "a\r\nAuthorization: Bearer stolen"])
        await #expect(throws: TransportError.self) { try await transport.send(request) }
    }
}

@Suite("Response headers")
struct ResponseHeaderTests {
    /// Response headers arrive in order and are readable case-insensitively.
    @Test(.pinsItsDialect) func headersCaptured() async throws {
        // moltbook.com sends X-RateLimit-* (the community mock sends none).
        let sandbox = try await SandboxHarness.start(config: SandboxConfig(dialect: .moltbookCom))
        defer { Task { await sandbox.stop() } }
        let response = try await sandbox.transport.send(
            HTTPRequest(method: .get, url: sandbox.baseURL.appendingPathComponent("agents/me")))
        #expect(response.status == 401)
        #expect(response.headers["content-type"]?.hasPrefix("application/json") == true)
        #expect(response.headers["x-ratelimit-limit"] != nil)
    }
}
