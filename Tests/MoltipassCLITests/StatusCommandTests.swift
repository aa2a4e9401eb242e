import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// `moltipass status` through the real binary, after a real `run --once` against a sandbox process.
@Suite("moltipass status")
struct StatusCommandTests {
    /// Status shows the cooldown the post left, every limit class (`vote`, `follow` and
    /// `subscribe` too, bound by the write budget), the next occurrence and a healthy engine; it
    /// does not change the state file; `--health` fails once the last tick is too old
    /// (`--max-tick-age` a duration).
    @Test func statusAfterARun() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let sandbox = try await SandboxProcess.start()
        try await home.initKeychain()
        let registered = try await home.run([
            "register", "status_bot", "--description", "status test", "--base-url", sandbox.baseURL.absoluteString,
        ])
        #expect(registered.status == 0, "register: \(registered.stderr)")
        try await claimOnSandbox(sandbox, "status_bot")
        let recipe = home.directory.file("status.yaml")
        // An occurrence half an hour before the run, which the first run takes as within its window.
        let start = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-1_800))
        try """
        agent: status_bot
        base_url: \(sandbox.baseURL.absoluteString)
        jobs:
          - id: hourly
            schedule:
              every: 1h
              start: \(start)
              missed: { run_once_within: 1h }
            steps:
              - post:
                  submolt: general
                  title: "Status check"
                  content: "Posted by the engine"
        """.write(to: recipe, atomically: true, encoding: .utf8)
        let state = home.directory.file("state.sqlite").path

        let fresh = try await home.run(["status", recipe.path, "--state", state, "--health"])
        #expect(fresh.status == 1)
        #expect(fresh.stderr.contains("no engine is running"), "\(fresh.stderr)")

        let run = try await home.run(["run", recipe.path, "--once", "--verbose", "--state", state])
        #expect(run.status == 0, "run: \(run.stderr)")
        #expect(run.stderr.contains("1 done"))
        let before = try Data(contentsOf: URL(fileURLWithPath: state))

        let text = try await home.run(["status", recipe.path, "--state", state])
        #expect(text.status == 0, "status: \(text.stderr)")
        #expect(text.stdout.contains("agent status_bot"))
        #expect(text.stdout.contains("post.cooldown"))
        #expect(text.stdout.contains("next status/hourly at"))

        let json = try await home.run(["status", recipe.path, "--state", state, "--json"])
        let parsed = try JSONValue.parse(Data(json.stdout.utf8))
        let agent = try #require(parsed["agents"]?.array?.first)
        #expect(agent["agent"]?.string == "status_bot")
        let post = agent["classes"]?.array?.first { $0["limit_class"]?.string == "post" }
        #expect(post?["tokens"]?.int == 0)
        #expect(post?["next_allowed"]?.string != nil)
        let classes = agent["classes"]?.array ?? []
        #expect(
            classes.compactMap { $0["limit_class"]?.string }
                == ["read", "write", "post", "comment", "vote", "follow", "subscribe", "submolt", "verify", "dm"])
        let write = classes.first { $0["limit_class"]?.string == "write" }?["tokens"]?.int
        let vote = classes.first { $0["limit_class"]?.string == "vote" }?["tokens"]?.int
        #expect(write != nil && vote == write, "\(json.stdout)")
        #expect(text.stdout.contains("\n  vote      "), "\(text.stdout)")
        #expect(agent["pending"]?.array?.isEmpty == true)

        let healthy = try await home.run(["status", recipe.path, "--state", state, "--health"])
        #expect(healthy.status == 0, "health: \(healthy.stderr)")
        let later = ISO8601DateFormatter().string(from: Date().addingTimeInterval(3_600))
        let stale = try await home.run([
            "status", recipe.path, "--state", state, "--health", "--max-tick-age", "10m", "--now", later,
        ])
        #expect(stale.status == 1)
        #expect(stale.stderr.contains("last engine tick"))

        #expect(try Data(contentsOf: URL(fileURLWithPath: state)) == before)
        home.expectNoLeak(of: [])
        #expect(await sandbox.stop() == 0)
    }
}
