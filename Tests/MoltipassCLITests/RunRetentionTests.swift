import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// `run --journal-retention`: done journal entries older than the retention leave the state
/// file; what dedup needs stays, so a pruned vote is still never sent again.
@Suite("run --journal-retention")
struct RunRetentionTests {
    static let day: TimeInterval = 86_400

    @Test
    func prunesOldDoneEntriesAndKeepsTheirFacts() async throws {
        let fixture = try await RunFixture.start(sandboxArguments: ["--config", try RunCrashTests.config()])
        defer { Task { await fixture.stop() } }
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(-2 * Self.day))
        try await fixture.agent("keeper")
        let target = try await fixture.hostPost()
        try fixture.queue(count: 5)
        let recipe = try fixture.postingRecipe(
            "keeper",
            extraJobs: """
                  - id: votes
                    schedule: { every: 30m }
                    steps:
                      - vote: { ensure: upvoted, post: \(target) }
                """)

        let first = try await fixture.run([recipe, "--once"], at: RunFixture.t0)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try await fixture.journalCount("state = 'done'") == 2)

        // 91 days later, keeping everything: nothing is pruned, and the vote is not sent again.
        let later = RunFixture.t0.addingTimeInterval(91 * Self.day)
        // 91 days of half-hourly occurrences are reported missed (one line now; it was 4,368, and beside
        // a loaded suite the run passed 60 s): a ceiling of its own all the same.
        let kept = try await fixture.run(
            [recipe, "--once", "--journal-retention", "forever"], at: later, timeout: 300)
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(try await fixture.journalCount("state = 'done'") == 3)
        #expect(try await fixture.journalCount("created_at < \(later.timeIntervalSince1970 - 90 * Self.day)") == 2)

        // The default (90 days): the two entries of t0 go, the two of the last 91st day stay. Two hours
        // on (30 s past the occurrence): the post of the run before was sent once its run reached it,
        // which on a loaded machine was a minute after `--now` (a CI run at 31 min was still inside
        // its 30-minute cooldown, exit 4).
        let pruningAt = later.addingTimeInterval(7_230)
        let pruning = try await fixture.run(
            [recipe, "--once", "--log-level", "info", "--log-format", "json"], at: pruningAt, timeout: 300)
        #expect(pruning.status == 0, "\(pruning.stderr)")
        #expect(try await fixture.journalCount("state = 'done'") == 2)
        #expect(try await fixture.journalCount("created_at < \(later.timeIntervalSince1970)") == 0)
        let line = try #require(pruning.stderr.split(separator: "\n").first { $0.contains("journal_pruned") })
        #expect(line.contains("\"entries\":\"2\""), "\(line)")

        // The vote's fact outlives its journal entry: the target is still never voted twice.
        // An hour and a half on: past the runner's one-hour gap, so only the current occurrence runs.
        let again = try await fixture.run([recipe, "--once"], at: pruningAt.addingTimeInterval(5_400))
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try await fixture.counter("votes_cast") == 1)
        #expect(try await fixture.counter("votes_removed") == 0)
        #expect(
            try await fixture.sqlite("SELECT count(*) FROM dedup WHERE kind = 'post_vote' AND journal_key IS NULL")
                == "1")
        #expect(try await fixture.titles(of: "keeper") == ["Item 0", "Item 1", "Item 2", "Item 3"])
    }

    /// The daemon honours `--journal-retention` too (issue 20: it built its runner a second time
    /// and pruned at 90 days whatever the flag said). 91 days on, `forever` keeps the old entries.
    @Test
    func theDaemonHonoursTheRetention() async throws {
        let fixture = try await RunFixture.start(sandboxArguments: ["--config", try RunCrashTests.config()])
        defer { Task { await fixture.stop() } }
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(-2 * Self.day))
        try await fixture.agent("daemon_keeper")
        try fixture.queue(count: 5)
        let recipe = try fixture.postingRecipe("daemon_keeper")
        #expect(try await fixture.run([recipe, "--once"], at: RunFixture.t0).status == 0)
        #expect(try await fixture.journalCount("state = 'done'") == 1)
        let later = RunFixture.t0.addingTimeInterval(91 * Self.day + 5)
        try await fixture.setClock(later)
        let daemon = try ChildProcess(
            "moltipass",
            [
                "run", recipe, "--state", fixture.statePath, "--now", RunFixture.iso(later), "--log-format", "json",
                "--journal-retention", "forever",
            ],
            environment: fixture.home.environment, directory: fixture.home.directory.url)
        let deadline = Date().addingTimeInterval(60)
        while !daemon.stdout.contains("\"outcome\":\"done\""), Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: 30) == 0, "\(daemon.stderr)")
        #expect(!daemon.stdout.contains("journal_pruned"), "\(daemon.stdout)")
        #expect(try await fixture.journalCount("state = 'done'") == 2)
    }

    @Test
    func refusesAMalformedRetention() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = home.path + "/r.yaml"
        try
            "agent: someone\njobs:\n  - id: p\n    schedule: { every: 1h }\n    steps:\n      - post: { submolt: general, title: t, content: c }\n"
            .write(toFile: recipe, atomically: true, encoding: .utf8)
        let state = home.path + "/state.sqlite"
        let result = try await home.run(["run", recipe, "--once", "--state", state, "--journal-retention", "3x"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--journal-retention"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: state))
    }
}
