import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 34, observation 6: with two recipe files, one broken on disk and SIGHUP, the daemon logged
/// `recipes reloaded` and that file's agent stopped posting (the previous recipes were kept only when no
/// file was valid). Now the broken file's previous version keeps running, and the log names the file. A
/// daemon on a clock 600 times faster (30 minutes in 3 s), against a sandbox on the same clock.
@Suite("moltipass run: a reload with one broken file")
struct ReloadKeepsTests {
    static func recipe(_ agent: String, base: String) -> String {
        """
        agent: \(agent)
        time_zone: UTC
        base_url: \(base)
        jobs:
          - id: notes
            schedule: { every: 30m }
            steps:
              - post: { submolt: general, title: "\(agent) {{ date: HH:mm }}", content: "Notes of {{ date: HH:mm }}." }
        """
    }

    @Test func theBrokenFilesPreviousVersionKeepsRunning() async throws {
        let start = RunFixture.t0
        let fixture = try await RunFixture.start(
            sandboxArguments: ["--now", RunFixture.iso(start), "--time-scale", "600"], dialect: .moltbookCom)
        defer { Task { await fixture.stop() } }
        for agent in ["steady_a", "steady_b"] {
            try await fixture.agent(agent)
            try await fixture.admin(.post, "agents/\(agent)/age", .object(["age_seconds": .number(3 * 86_400)]))
        }
        let first = try fixture.file("a.yaml", Self.recipe("steady_a", base: fixture.base))
        let second = try fixture.file("b.yaml", Self.recipe("steady_b", base: fixture.base))
        let daemon = try ChildProcess(
            "moltipass",
            [
                "run", first, second, "--state", fixture.statePath, "--now", try await fixture.sandboxNow(),
                "--time-scale", "600", "--log-format", "json",
            ],
            environment: fixture.home.environment, directory: fixture.home.directory.url)
        let deadline = Date().addingTimeInterval(120)
        func posts(_ agent: String) async throws -> Int { try await fixture.titles(of: agent).count }
        while try await posts("steady_b") < 1, Date() < deadline { try await Task.sleep(for: .seconds(1)) }
        #expect(try await posts("steady_b") >= 1, "\(daemon.stdout)")

        try "agent: steady_b\njobs:\n  - id: notes\n    schedule: { every: 30x }\n    steps: []\n"
            .write(toFile: second, atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        while !daemon.stdout.contains("recipes reloaded"), Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let skipped = daemon.stdout.split(separator: "\n").first { $0.contains("recipe skipped") }.map(String.init)
        #expect(skipped?.contains("b.yaml:4:") == true, "the log names the broken file: \(daemon.stdout)")
        #expect(skipped?.contains("its previous version keeps running") == true, "\(skipped ?? "")")
        // b.yaml's agent goes on posting on its previous version (two more half-hours: 6 s here).
        let before = try await posts("steady_b")
        while try await posts("steady_b") < before + 2, Date() < deadline {
            try await Task.sleep(for: .seconds(1))
        }
        #expect(try await posts("steady_b") >= before + 2, "steady_b stopped posting: \(daemon.stdout)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: 30) == 0, "\(daemon.stderr)")
        #expect(try await fixture.counter("duplicate_contents") == 0)
    }
}
