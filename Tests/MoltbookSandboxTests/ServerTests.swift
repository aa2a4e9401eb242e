import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltbookSandboxServer
import MoltipassTesting
import Testing

@Suite struct ServerTests {
    static func start(_ config: SandboxConfig = SandboxConfig(limits: .unlimited, newAgentPeriodSeconds: 0))
        async throws -> (SandboxServer, UInt16)
    {
        let server = SandboxServer(model: SandboxModel(config: config), clock: SettableClock(fixed: SandboxDriver.t0))
        let url = try await server.start()
        #expect(url.host == "127.0.0.1")
        #expect(url.path == "/api/v1")
        return (server, UInt16(url.port ?? 0))
    }

    static let register = RawHTTPClient.request(
        "POST", "/api/v1/agents/register", headers: ["Content-Type": "application/json"], body: #"{"name":"Wire"}"#)

    /// Start returns a loopback URL, a request round-trips over HTTP, and stop closes the port.
    @Test func roundTripAndStop() async throws {
        let (server, port) = try await Self.start()
        let responses = await RawHTTPClient.exchange(port: port, requests: [Self.register])
        let response = try #require(responses.first ?? nil)
        #expect(response.status == 201)
        #expect(response.headers["content-type"] == "application/json; charset=utf-8")
        #expect(response.headers["x-ratelimit-limit"] != nil)
        #expect(JSON.parseOrNil(response.body)?["agent"]?["name"] == "Wire")
        #expect(server.model.counters().requestsTotal == 1)
        await server.stop()
        let after = await RawHTTPClient.exchange(port: port, requests: [Self.register])
        #expect(after.first ?? nil == nil)
    }

    /// Several requests share one keep-alive connection.
    @Test func keepAlive() async throws {
        let (server, port) = try await Self.start()
        let status = RawHTTPClient.request("GET", "/api/v1/agents/status")
        let responses = await RawHTTPClient.exchange(port: port, requests: [Self.register, status, status])
        #expect(responses.map { $0?.status } == [201, 401, 401])
        #expect(server.model.counters().requestsTotal == 3)
        await server.stop()
    }

    /// The drop fault sends headers, then closes mid-body; the write was applied.
    @Test func dropClosesConnection() async throws {
        let (server, port) = try await Self.start()
        server.model.injectFaults([FaultSpec(mode: .drop, pathPrefix: "/api/v1/agents/register")])
        let responses = await RawHTTPClient.exchange(port: port, requests: [Self.register, Self.register])
        let first = try #require(responses.first ?? nil)
        #expect(first.status == 201)
        #expect(first.truncated)
        #expect(responses.count == 2 && responses[1] == nil)
        // The agent exists: registering the same name again is a conflict.
        let again = await RawHTTPClient.exchange(port: port, requests: [Self.register])
        #expect(again.first??.status == 409)
        await server.stop()
    }

    /// The delay fault holds the answer for the configured time.
    @Test func delayFaultDelays() async throws {
        let (server, port) = try await Self.start()
        server.model.injectFaults([FaultSpec(mode: .delay, delaySeconds: 0.4)])
        let started = ContinuousClock.now
        let responses = await RawHTTPClient.exchange(port: port, requests: [Self.register])
        let elapsed = ContinuousClock.now - started
        #expect(responses.first??.status == 201)
        #expect(elapsed >= .milliseconds(400))
        await server.stop()
    }

    /// POST /_sandbox/clock advances or sets the front's clock, which the model then sees.
    @Test func clockEndpoint() async throws {
        let (server, port) = try await Self.start()
        let advance = RawHTTPClient.request("POST", "/_sandbox/clock", body: #"{"advance_seconds":90}"#)
        let set = RawHTTPClient.request("POST", "/_sandbox/clock", body: #"{"now":"2026-03-01T00:00:00Z"}"#)
        let bad = RawHTTPClient.request("POST", "/_sandbox/clock", body: #"{"later":true}"#)
        let responses = await RawHTTPClient.exchange(port: port, requests: [advance, set, bad])
        #expect(
            JSON.parseOrNil(responses[0]?.body ?? Data())?["now"] == .string(SandboxTime.iso(SandboxDriver.t0 + 90)))
        #expect(JSON.parseOrNil(responses[1]?.body ?? Data())?["now"] == "2026-03-01T00:00:00.000000+00:00")
        #expect(responses[2]?.status == 400)
        #expect(server.clock.now == SandboxTime.parse("2026-03-01T00:00:00Z"))
        await server.stop()
    }

    /// Non-loopback hosts are refused before binding.
    @Test(arguments: ["0.0.0.0", "192.168.1.10", "example.com", "::"])
    func refusesNonLoopback(host: String) async {
        let server = SandboxServer(model: SandboxModel(), host: host)
        await #expect(throws: SandboxServer.StartError.self) { _ = try await server.start() }
    }
}
