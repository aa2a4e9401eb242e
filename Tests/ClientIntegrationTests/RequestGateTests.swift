import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Synchronization
import Testing

/// The client's gate (`MoltbookClient.with(gate:)`, the engine's lease fence): asked before each
/// request, over real libcurl and loopback; a refused request never reaches the server and ends
/// as a transport failure before sending, which no caller may take for an outcome to reconcile.
@Suite("The client asks its gate before each request")
struct RequestGateTests {
    @Test(.pinsItsDialect) func aRefusedRequestNeverReachesTheServer() async throws {
        let sandbox = try await SandboxHarness.start(
            config: SandboxConfig(dialect: .moltbookCom), clock: SettableClock(fixed: fixedStart))
        defer { Task { await sandbox.stop() } }
        let key = try await sandbox.registeredAgent("gated")
        let asked = Mutex<[String]>([])
        let open = Mutex(true)
        let client = try sandbox.client(key: key).with { endpoint in
            asked.withLock { $0.append(endpoint) }
            guard open.withLock({ $0 }) else {
                return APIError(
                    code: .transport, message: "not sent: closed", endpoint: endpoint,
                    transport: .cancelled(requestSent: false))
            }
            return nil
        }
        _ = try await client.me()
        let before = sandbox.model.counters().requestsTotal
        open.withLock { $0 = false }
        let error = try #require(
            await apiError { try await client.createPost(.text(submolt: "general", title: "Kept", content: "back")) })
        #expect(error.code == .transport)
        #expect(!error.outcomeUnknown)
        #expect(error.message == "not sent: closed")
        #expect(sandbox.model.counters().requestsTotal == before)
        #expect(sandbox.model.counters().postsCreated == 0)
        #expect(asked.withLock { $0 } == ["GET /agents/me", "POST /posts"])
        // A copy with another key keeps the gate.
        let other = client.with(apiKey: key)
        #expect(await apiError { try await other.me() }?.message == "not sent: closed")
    }
}
