import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// Issue 33, observation 8, through the binary: a server whose DM check says
/// `{"has_new_messages": true, "pending_requests": 1}`, whose pending requests are the
/// conversation list's `approved: false` entries (`/agents/dm/requests` answers 404) and whose
/// messages are at `/conversations/ID/messages` (`dm_shape: in_conversations`). Before: the
/// request was read as none, the message never answered, and the report said "nothing to
/// answer". And a route that fails after the others answered shows as "cannot read" in the
/// report and in `status`, never as "no pending DM requests".
@Suite("moltipass run: direct messages in another shape")
struct DirectMessageShapesTests {
    /// reef_dm (our agent), a friend whose approved conversation holds one unanswered message,
    /// and a stranger whose request waits; every agent two days old. `faults`: the sandbox's.
    static func setUp(_ agent: String, faults: JSONValue? = nil) async throws -> (RunFixture, String) {
        let fixture = try await RunFixture.start(dialect: .moltbookCom)
        try await fixture.admin(
            .post, "config", .object(["dm_shape": .string("in_conversations"), "new_agent_period_seconds": .number(0)]))
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(-600))
        try await fixture.agent(agent)
        try await fixture.admin(.post, "agents/\(agent)/age", .object(["age_seconds": .number(2 * 86_400)]))
        var clients: [String: MoltbookClient] = [:]
        for name in ["friend_\(agent)", "stranger_\(agent)"] {
            let key = APIKey(try await registerOnSandbox(fixture.sandbox, name))
            try await claimOnSandbox(fixture.sandbox, name)
            try await fixture.admin(.post, "agents/\(name)/age", .object(["age_seconds": .number(2 * 86_400)]))
            clients[name] = try MoltbookClient(
                baseURL: fixture.sandbox.baseURL, apiKey: key, transport: fixture.transport, allowLoopback: true)
        }
        let friend = try #require(clients["friend_\(agent)"])
        let asked = try await friend.requestDM(to: agent, message: "Hello, may we talk about tide tables?")
        try await fixture.admin(.post, "dm/requests/\(try #require(asked.value.conversationID))/approve")
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(-300))
        _ = try await friend.sendDM(
            conversationID: try #require(asked.value.conversationID), message: "Which tide table do you trust?")
        _ = try await clients["stranger_\(agent)"]?.requestDM(
            to: agent, message: "Hi there, I sell shells. Interested?")
        if let faults { try await fixture.admin(.post, "faults", faults) }
        let recipe = try fixture.file(
            "dm.yaml",
            """
            agent: \(agent)
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: heartbeat
                schedule: { heartbeat: 30m }
                steps:
                  - dm:
                      content: "Hello {{ trigger.author }}, reef here ({{ trigger.id }})."
            """)
        return (fixture, recipe)
    }

    /// Two runs half an hour apart (the heartbeat's first beat may fall in either): every report item.
    static func runTwice(_ fixture: RunFixture, _ recipe: String) async throws -> [JSONValue] {
        var items: [JSONValue] = []
        for at in [RunFixture.t0, RunFixture.t0.addingTimeInterval(1_860)] {
            let run = try await fixture.run([recipe, "--once", "--json"], at: at, detailed: false)
            items += try JSONValue.parse(Data(run.stdout.utf8))["items"]?.array ?? []
        }
        return items
    }

    static func statusText(_ fixture: RunFixture, _ recipe: String) async throws -> String {
        let status = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--now",
            RunFixture.iso(RunFixture.t0.addingTimeInterval(1_900)),
        ])
        #expect(status.status == 0, "\(status.stderr)")
        return status.stdout
    }

    /// The friend's message is answered once, the stranger's request is seen (and, with no
    /// `approve_from`, left to the human), nothing is reported unreadable.
    @Test(.pinsItsDialect) func requestsInTheConversationListAndMessagesUnderTheirOwnRoute() async throws {
        let (fixture, recipe) = try await Self.setUp("reef_dm")
        defer { Task { await fixture.stop() } }
        let items = try await Self.runTwice(fixture, recipe)
        #expect(!items.contains { $0["outcome"]?.string == "failed" }, "\(items)")
        let conversations =
            try await fixture.admin(.get, "dm/conversations?agent=reef_dm")["conversations"]?.array ?? []
        let friend = try #require(conversations.first { $0["from"]?.string == "friend_reef_dm" }, "\(conversations)")
        let answers = (friend["messages"]?.array ?? []).filter { $0["sender"]?.string == "reef_dm" }
        #expect(answers.count == 1, "the friend's message answered once: \(friend)")
        let stranger = try #require(conversations.first { $0["from"]?.string == "stranger_reef_dm" })
        #expect(stranger["status"]?.string == "pending")
        let text = try await Self.statusText(fixture, recipe)
        #expect(text.contains("1 pending DM request (from stranger_reef_dm)"), "\(text)")
        #expect(!text.contains("cannot read"), "\(text)")
    }

    /// The conversation list answers 404 after the check answered 200: the run says "cannot
    /// read" (a failed line, not "nothing to answer"), and `status` names the counted request
    /// instead of "no pending DM requests".
    @Test(.pinsItsDialect) func aRouteThatFailsIsCannotRead() async throws {
        let (fixture, recipe) = try await Self.setUp(
            "kelp_dm",
            faults: .array([
                .object([
                    "mode": .string("html_error"), "status": .number(404),
                    "path_prefix": .string("/api/v1/agents/dm/conversations"), "count": .number(100),
                ])
            ]))
        defer { Task { await fixture.stop() } }
        let items = try await Self.runTwice(fixture, recipe)
        let failed = items.filter {
            $0["action"]?.string == "read direct messages" && $0["outcome"]?.string == "failed"
        }
        #expect(!failed.isEmpty, "\(items)")
        let reason = failed.first?["reason"]?.string ?? ""
        #expect(reason.hasPrefix("cannot read: "), "\(reason)")
        #expect(reason.contains("GET /agents/dm/conversations"), "\(reason)")
        #expect(reason.contains("1 pending DM request the check counts but no route lists"), "\(reason)")
        #expect(!items.contains { $0["reason"]?.string == "nothing to answer" }, "\(items)")
        let text = try await Self.statusText(fixture, recipe)
        #expect(!text.contains("no pending DM requests"), "\(text)")
        #expect(text.contains("1 pending DM request"), "\(text)")
        #expect(text.contains("cannot read"), "\(text)")
    }
}
