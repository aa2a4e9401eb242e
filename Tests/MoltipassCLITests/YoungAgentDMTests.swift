import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// Direct messages and an agent younger than 24 hours (issue 22), through the real binary and a
/// sandbox process: `run --once` reads no DM route at all (the sandbox's per-route counters say
/// so), the step is skipped with the reason, and `status --json` says until when DMs are blocked.
/// Once the agent is two days old, the same recipe reads them.
@Suite("Direct messages: a young agent")
struct YoungAgentDMTests {
    @Test(.pinsItsDialect) func aYoungAgentReadsNoDirectMessages() async throws {
        let fixture = try await RunFixture.start(dialect: .moltbookCom)
        defer { Task { await fixture.stop() } }
        try await fixture.agent("fresh_bot")
        let recipe = try fixture.file(
            "fresh.yaml",
            """
            agent: fresh_bot
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: inbox
                schedule: { heartbeat: 30m }
                steps:
                  - dm:
                      content: "Hello {{ trigger.author }} ({{ trigger.id }})."
            """)
        let young = try await fixture.run([recipe, "--once", "--json"], at: RunFixture.t0.addingTimeInterval(3_600))
        #expect([0, 3].contains(young.status), "\(young.stderr)")
        #expect(
            young.stdout.contains("direct messages are not available to agents younger than 24 hours"),
            "\(young.stdout)")
        var routes = try await fixture.counters()["requests_by_agent_endpoint"]?["fresh_bot"]?.object ?? [:]
        #expect(!routes.keys.contains { $0.contains("/agents/dm") }, "\(routes.keys.sorted())")

        let status = try await fixture.home.run([
            "status", recipe, "--json", "--state", fixture.statePath, "--now",
            RunFixture.iso(RunFixture.t0.addingTimeInterval(3_600)),
        ])
        #expect(status.status == 0, "\(status.stderr)")
        let agents = try JSONValue.parse(Data(status.stdout.utf8))["agents"]?.array ?? []
        let dm = agents.first { $0["agent"]?.string == "fresh_bot" }?["inbox"]?["dm"]
        #expect(dm?["available"]?.bool == false, "\(status.stdout)")
        #expect(dm?["state"]?.string == "blocked")
        #expect(dm?["until"]?.string != nil)

        // Two days older (the sandbox's admin route), and a new state file: an agent's creation
        // time never changes on a real server, so the engine keeps what it read.
        try await fixture.admin(.post, "agents/fresh_bot/age", .object(["age_seconds": .number(2 * 86_400)]))
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: fixture.statePath + suffix) }
        let older = try await fixture.run(
            [recipe, "--once", "--json"], at: RunFixture.t0.addingTimeInterval(2 * 3_600))
        #expect([0, 3].contains(older.status), "\(older.stderr)")
        routes = try await fixture.counters()["requests_by_agent_endpoint"]?["fresh_bot"]?.object ?? [:]
        #expect(routes.keys.contains("GET /agents/dm/check"), "\(routes.keys.sorted())")
    }
}
