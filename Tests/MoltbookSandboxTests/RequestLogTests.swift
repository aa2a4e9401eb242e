import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltbookSandboxServer
import MoltipassTesting
import Testing

/// `moltbook-sandbox --request-log` (issue 23's fleet proof reads it): one JSON line per request
/// with the agent its key names, the peer, the method, path and status, the wall time and the
/// sandbox's clock; never the key, a header or a body.
@Suite struct RequestLogTests {
    @Test func oneLinePerRequestWithoutSecrets() async throws {
        let directory = try TemporaryDirectory(prefix: "sandbox-request-log")
        defer { directory.remove() }
        let path = directory.file("requests.jsonl").path
        let log = try SandboxRequestLog(path: path)
        let server = SandboxServer(
            model: SandboxModel(config: SandboxConfig(limits: .unlimited, newAgentPeriodSeconds: 0)),
            clock: SettableClock(fixed: SandboxDriver.t0), requestLog: log)
        let port = UInt16(try await server.start().port ?? 0)
        let registered = await RawHTTPClient.exchange(port: port, requests: [ServerTests.register])
        let body = try #require(registered.first ?? nil).body
        let key = try #require(JSON.parseOrNil(body)?["agent"]?["api_key"]?.string)
        let me = RawHTTPClient.request("GET", "/api/v1/agents/me", headers: ["Authorization": "Bearer \(key)"])
        let wrong = RawHTTPClient.request(
            "GET", "/api/v1/agents/me", headers: ["Authorization": "Bearer moltbook_sk_unknownunknownunknown00"])
        let answers = await RawHTTPClient.exchange(port: port, requests: [me, wrong])
        #expect(answers.map { $0?.status } == [200, 401])
        await server.stop()
        log.close()

        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n").map { try? JSONValue.parse(Data($0.utf8)) }
        #expect(lines.count == 3, "\(text)")
        #expect(lines.map { $0?["agent"]?.string } == [nil, "Wire", nil])
        #expect(lines.map { $0?["method"]?.string } == ["POST", "GET", "GET"])
        #expect(
            lines.map { $0?["path"]?.string } == ["/api/v1/agents/register", "/api/v1/agents/me", "/api/v1/agents/me"])
        #expect(lines.map { $0?["status"]?.int } == [201, 200, 401])
        #expect(lines.allSatisfy { $0?["peer"]?.string == "127.0.0.1" })
        #expect(lines.allSatisfy { $0?["clock"]?.double == SandboxDriver.t0.timeIntervalSince1970 })
        let times = lines.compactMap { $0?["time"]?.double }
        #expect(times.count == 3 && abs(times[0] - Date().timeIntervalSince1970) < 120)
        #expect(!text.contains(key) && !text.contains("moltbook_sk_") && !text.contains("Bearer"))
    }
}
