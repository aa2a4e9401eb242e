import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltbookSandboxServer
import MoltipassTesting
import Testing

/// `/home`, notifications and DMs over real HTTP: a `SandboxServer` on loopback reached through
/// libcurl, and the `moltbook-sandbox` executable with `--simulated-agents`.
@Suite struct InboxServerTests {
    /// One API call through the harness's transport; the status and the parsed body.
    static func call(
        _ sandbox: SandboxHarness, _ method: HTTPMethod, _ path: String, key: APIKey, json: JSON? = nil
    ) async throws -> (status: Int, json: JSON) {
        var headers: HTTPHeaders = [:]
        key.withRawValue { headers.add(name: "Authorization", value: "Bearer \($0)") }
        if json != nil { headers.add(name: "Content-Type", value: "application/json") }
        let url = try #require(URL(string: sandbox.baseURL.absoluteString + path))
        let response = try await sandbox.transport.send(
            HTTPRequest(
                method: method, url: url, headers: headers, body: json?.serialized() ?? (method == .get ? nil : Data()))
        )
        return (response.status, (try? JSON.parse(response.body)) ?? .null)
    }

    /// Over HTTP: a young agent is refused DMs until the admin route ages it; `/home` shows a
    /// comment on its post and a pending request; a request approved by the human carries
    /// messages both ways; the counters count one `GET /home` per read, per agent, with its instant.
    @Test func homeAndDirectMessagesOverHTTP() async throws {
        let start = SandboxDriver.t0
        let clock = SettableClock(fixed: start)
        let sandbox = try await SandboxHarness.start(
            config: SandboxConfig(limits: .unlimited, newAgentPeriodSeconds: 0), clock: clock)
        do {
            let alice = try await sandbox.registeredAgent("alice")
            let bob = try await sandbox.registeredAgent("bob")
            let young = try await Self.call(sandbox, .get, "/agents/dm/check", key: alice)
            #expect(young.status == 403)
            #expect(young.json["error"] == "Direct messages are not available for agents younger than 24 hours")
            for name in ["alice", "bob"] {
                try await sandbox.admin(.post, "agents/\(name)/age", json: ["age_seconds": 172_800])
            }

            let post = try await Self.call(
                sandbox, .post, "/posts", key: alice, json: ["submolt_name": "general", "title": "Over the wire"])
            let postID = try #require(post.json["post"]?["id"]?.stringValue)
            clock.advance(by: 60)
            _ = try await Self.call(sandbox, .post, "/posts/\(postID)/comments", key: bob, json: ["content": "Read it"])
            let request = try await Self.call(
                sandbox, .post, "/agents/dm/request", key: bob, json: ["to": "alice", "message": "Can we talk, alice?"])
            #expect(request.status == 201)
            let conversation = try #require(request.json["conversation_id"]?.stringValue)

            let home = try await Self.call(sandbox, .get, "/home", key: alice)
            #expect(home.status == 200)
            #expect(home.json["activity_on_your_posts"]?.arrayValue?.first?["post_id"] == .string(postID))
            #expect(home.json["activity_on_your_posts"]?.arrayValue?.first?["latest_commenters"] == ["bob"])
            #expect(home.json["your_direct_messages"]?["pending_request_count"] == "1")
            #expect(home.json["your_account"]?["unread_notification_count"] == 2)

            try await sandbox.admin(.post, "dm/requests/\(conversation)/approve")
            clock.advance(by: 60)
            let sent = try await Self.call(
                sandbox, .post, "/agents/dm/conversations/\(conversation)/send", key: alice,
                json: ["message": "Of course, bob."])
            #expect(sent.status == 201)
            let bobSide = try await Self.call(sandbox, .get, "/agents/dm/conversations/\(conversation)", key: bob)
            let messages = bobSide.json["messages"]?.arrayValue ?? []
            #expect(messages.map { $0["content"] } == ["Can we talk, alice?", "Of course, bob."])
            #expect(messages.map { $0["is_read"] } == [false, false])
            let marked = try await Self.call(sandbox, .post, "/notifications/read-by-post/\(postID)", key: alice)
            #expect(marked.json["marked_read"] == 1)
            clock.advance(by: 1_800)
            _ = try await Self.call(sandbox, .get, "/home", key: alice)
            _ = try await Self.call(sandbox, .get, "/home", key: bob)

            let counters = try await sandbox.counters()
            #expect(counters["requests_by_agent_endpoint"]?["alice"]?["GET /home"] == 2)
            #expect(counters["requests_by_agent_endpoint"]?["bob"]?["GET /home"] == 1)
            #expect(counters["requests_by_agent_endpoint"]?["bob"]?["POST /agents/dm/request"] == 1)
            #expect(
                counters["home_reads"]?["alice"]
                    == [.string(SandboxTime.iso(start.addingTimeInterval(60))), .string(SandboxTime.iso(clock.now))])
            let notifications = try await sandbox.admin(.get, "notifications")["notifications"]?.arrayValue ?? []
            #expect(notifications.map { $0["type"] } == ["post_comment", "dm_request"])
            #expect(notifications.allSatisfy { $0["read_at"] != .null })
        } catch {
            await sandbox.stop()
            throw error
        }
        await sandbox.stop()
    }

    /// `moltbook-sandbox --simulated-agents 2` starts with two simulated agents that comment on a
    /// post once its clock has moved on; a bad count, or a bad `simulation` in `--config`, is a
    /// usage error naming it.
    @Test func simulatedAgentsFlag() async throws {
        let sandbox = try await SandboxProcess.start(arguments: [
            "--simulated-agents", "2", "--auto-claim", "--now", "2026-03-01T00:00:00Z", "--dm-min-age-seconds", "0",
        ])
        let port = UInt16(sandbox.baseURL.port ?? 0)
        func exchange(_ requests: [String]) async -> [JSON] {
            await RawHTTPClient.exchange(port: port, requests: requests).map {
                JSON.parseOrNil($0?.body ?? Data()) ?? .null
            }
        }
        let json = ["Content-Type": "application/json"]
        let registered = await exchange([
            RawHTTPClient.request("POST", "/api/v1/agents/register", headers: json, body: #"{"name":"walker"}"#)
        ])
        let key = registered.first?["agent"]?["api_key"]?.stringValue ?? ""
        let auth = json.merging(["Authorization": "Bearer \(key)"]) { $1 }
        let answers = await exchange([
            RawHTTPClient.request(
                "POST", "/api/v1/posts", headers: auth, body: #"{"submolt_name":"general","title":"Anyone there?"}"#),
            RawHTTPClient.request("POST", "/_sandbox/clock", headers: json, body: #"{"advance_seconds":14400}"#),
            RawHTTPClient.request("GET", "/api/v1/home", headers: auth),
            RawHTTPClient.request("GET", "/_sandbox/simulation"),
        ])
        let status = await sandbox.stop()
        #expect(status == 0)
        #expect(answers[3]["agents"] == ["sim-kelp", "sim-coral"])
        let activity = answers[2]["activity_on_your_posts"]?.arrayValue?.first
        #expect((activity?["new_notification_count"]?.intValue ?? 0) >= 1)
        #expect(
            activity?["latest_commenters"]?.arrayValue?.allSatisfy { $0.stringValue?.hasPrefix("sim-") == true } == true
        )

        let refused = try await ProcessRunner.run("moltbook-sandbox", ["--simulated-agents", "2000"], timeout: 30)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--simulated-agents"))

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sim-\(UUID().uuidString).json")
        try Data(#"{"simulation":{"reply_probability":2}}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let badConfig = try await ProcessRunner.run("moltbook-sandbox", ["--config", file.path], timeout: 30)
        #expect(badConfig.status == 64)
        #expect(badConfig.stderr.contains("simulation: reply_probability must lie between 0 and 1"))
    }
}
