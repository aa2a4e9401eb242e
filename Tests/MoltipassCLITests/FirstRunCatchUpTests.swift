import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 34, observation 8, through the binary: with `missed: { catch_up: 3 }` the first run ever (a state that did
/// not exist) posted the 07:00 item at 10:00. Before the state existed nothing was missed, so nothing is caught up;
/// downtime after that is caught up as the policy says.
@Suite("catch_up on the first run")
struct FirstRunCatchUpTests {
    @Test func replaysNothingFromBeforeTheState() async throws {
        let fixture = try await RunFixture.start(sandboxArguments: ["--config", try RunCrashTests.config()])
        defer { Task { await fixture.stop() } }
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent("early_bird")
        try fixture.queue(count: 5)
        let recipe = try fixture.file(
            "early.yaml",
            """
            agent: early_bird
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: morning
                schedule: { cron: "0 7 * * *", missed: { catch_up: 3 } }
                steps:
                  - post: { submolt: general, queue: queue.yaml }
            """)
        let t0 = RunFixture.t0  // 10:00, three hours after the day's 07:00
        let first = try await fixture.run([recipe, "--once", "--json"], at: t0)
        #expect(first.status == 3, "nothing is due on the first run: \(first.stdout) \(first.stderr)")
        #expect(try await fixture.titles(of: "early_bird").isEmpty)

        // The next morning on time, then two mornings missed while the runner was down: both caught up.
        let nextMorning = t0.addingTimeInterval(21 * 3_600 + 20)
        #expect(try await fixture.run([recipe, "--once"], at: nextMorning).status == 0)
        #expect(try await fixture.titles(of: "early_bird") == ["Item 0"])
        let afterDowntime = t0.addingTimeInterval(3 * 86_400)
        let caughtUp = try await fixture.run([recipe, "--once", "--json"], at: afterDowntime)
        let items = try JSONValue.parse(Data(caughtUp.stdout.utf8))["items"]?.array ?? []
        // Both missed mornings are planned; the second waits for the post cooldown (30 minutes).
        #expect(items.filter { $0["outcome"]?.string == "done" }.count == 1, "\(caughtUp.stdout)")
        #expect(items.filter { $0["outcome"]?.string == "deferred" }.count == 1, "\(caughtUp.stdout)")
        #expect(try await fixture.titles(of: "early_bird") == ["Item 0", "Item 1"])
        #expect(try await fixture.counter("duplicate_contents") == 0)
    }
}
