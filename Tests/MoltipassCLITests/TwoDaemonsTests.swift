import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// Two daemons (two processes) on one state file, on a clock 60 times real time: `status` shows
/// the agents spread over both runners and which holds which since when; after one is killed
/// with SIGKILL the other takes its agents over within the lease time; no post is sent twice.
/// The multi-host proof with PostgreSQL is `scripts/fleet-check`.
@Suite("Two daemons share one state", .serialized)
struct TwoDaemonsTests {
    static let agents = ["pair_a", "pair_b", "pair_c", "pair_d"]
    static let scale = 60.0

    /// `status --json` at the sandbox's current instant.
    static func status(_ fixture: RunFixture, recipes: [String], state: String, backend: StateBackend) async throws
        -> JSONValue
    {
        let now = try await fixture.sandboxNow()
        let result = try await fixture.home.run(
            ["status"] + recipes + ["--state", state, "--json", "--now", now], extra: backend.environment)
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONValue.parse(Data(result.stdout.utf8))
    }

    /// The agents each live runner holds, by holder.
    static func held(_ status: JSONValue) -> [String: [String]] {
        var held: [String: [String]] = [:]
        for runner in status["runners"]?.array ?? [] {
            let agents = (runner["agents"]?.array ?? []).compactMap(\.string)
            if !agents.isEmpty, let holder = runner["holder"]?.string { held[holder] = agents }
        }
        return held
    }

    @Test(arguments: StateBackend.all)
    func spreadThenTakeOverAfterAKill(backend: StateBackend) async throws {
        let start = RunFixture.t0
        let fixture = try await RunFixture.start(
            sandboxArguments: ["--now", RunFixture.iso(start), "--time-scale", String(Int(Self.scale))])
        defer { Task { await fixture.stop() } }
        let state = try backend.state(fixture)
        var recipes: [String] = []
        for agent in Self.agents {
            try await fixture.agent(agent)
            try await fixture.admin(.post, "agents/\(agent)/age", .object(["age_seconds": .number(2 * 86_400)]))
            recipes.append(
                try fixture.file(
                    "\(agent).yaml",
                    """
                    agent: \(agent)
                    time_zone: UTC
                    base_url: \(fixture.base)
                    jobs:
                      - id: notes
                        schedule: { every: 1m }
                        steps:
                          - post: { submolt: general, title: "\(agent) {{ date: HH:mm }}", content: "A note." }
                    """))
        }
        func daemon() async throws -> ChildProcess {
            let now = try await fixture.sandboxNow()
            return try ChildProcess(
                "moltipass",
                ["run"] + recipes + [
                    "--state", state, "--now", now, "--time-scale", String(Int(Self.scale)),
                    "--lease-ttl", "60s", "--log-format", "json",
                ],
                environment: fixture.home.environment.merging(backend.environment) { $1 },
                directory: fixture.home.directory.url)
        }
        let first = try await daemon()
        try await Task.sleep(for: .seconds(2))
        let second = try await daemon()
        // Spread: both runners hold two agents each (within a few lease times).
        var spread: [String: [String]] = [:]
        for _ in 0..<40 {
            spread = Self.held(try await Self.status(fixture, recipes: recipes, state: state, backend: backend))
            if spread.count == 2, spread.values.allSatisfy({ $0.count == 2 }) { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        let status = try await Self.status(fixture, recipes: recipes, state: state, backend: backend)
        #expect(
            spread.count == 2 && spread.values.allSatisfy { $0.count == 2 },
            "\(spread)\n\(status)\n\(first.stderr.suffix(3_000))\n\(second.stderr.suffix(3_000))")
        let text = try await fixture.home.run(
            ["status"] + recipes + ["--state", state, "--now", try await fixture.sandboxNow()],
            extra: backend.environment)
        #expect(text.stdout.contains("runners:") && text.stdout.components(separatedBy: "2 agents held").count == 3)
        #expect(text.stdout.contains("(held by daemon-") && text.stdout.contains(" since "), "\(text.stdout)")
        for agent in status["agents"]?.array ?? [] {
            #expect(agent["lease_holder"]?.string?.hasPrefix("daemon-") == true, "\(agent)")
            #expect(agent["lease_since"]?.string != nil && agent["lease_token"]?.int != nil, "\(agent)")
        }

        // Kill the first: the second holds all four within the lease time (60 s at ×60: 1 s of
        // wall time), plus its wake-up.
        let killedAt = Date()
        first.send(SIGKILL)
        _ = await first.waitForExit(timeout: 10)
        var all: [String: [String]] = [:]
        while Date().timeIntervalSince(killedAt) < 15 {
            all = Self.held(try await Self.status(fixture, recipes: recipes, state: state, backend: backend))
            if all.count == 1, all.values.first?.count == 4 { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        let took = Date().timeIntervalSince(killedAt)
        #expect(all.count == 1 && all.values.first?.sorted() == Self.agents, "\(all)")
        // The lease time is 1 s of wall time here; the status polls and the scaled clock's
        // rounding add a little.
        #expect(took < 5, "took over after \(took) s")
        try await Task.sleep(for: .seconds(2))
        second.send(SIGTERM)
        #expect(await second.waitForExit(timeout: 60) == 0, "\(second.stderr)")

        // Every agent posted (an occurrence a simulated minute, a second here; the post cooldown
        // lets one through in the test's few seconds), and no occurrence twice across the kill.
        for agent in Self.agents {
            let titles = try await fixture.titles(of: agent)
            #expect(
                !titles.isEmpty && Set(titles).count == titles.count,
                "\(agent): \(titles)\n\(first.stdout.suffix(3_000))\n\(second.stdout.suffix(3_000))")
        }
        #expect(try await fixture.counter("duplicate_contents") == 0)
    }
}
