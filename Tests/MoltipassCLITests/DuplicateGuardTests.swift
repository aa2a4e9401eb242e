import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 18: the duplicate guard, through the binary against the sandbox.
@Suite("Duplicate content guard")
struct DuplicateGuardTests {
    /// "Hourly reminder / Drink water!" every hour and "Great post!" on every new post: the
    /// sandbox used to take every copy. The first of each goes out; every later copy is skipped
    /// with the reason and the earlier one named; the server sees no repeat.
    @Test
    func repeatedTextIsSentOnce() async throws {
        let (fixture, _) = try await RunFixture.establishedPoster("reminder_bot")
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0
        let recipe = try fixture.file(
            "reminder.yaml",
            """
            agent: reminder_bot
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: remind
                schedule: { every: 1h }
                steps:
                  - post: { submolt: general, title: Hourly reminder, content: "Drink water!" }
              - id: cheer
                schedule: { every: 1h }
                steps:
                  - comment: { on: { source: submolt, submolt: general, sort: new, not_mine: true }, content: "Great post!" }
            """)
        try await fixture.keychainAgent("other_poster")
        var reasons: [String] = []
        for hour in 1...4 {
            let at = t0.addingTimeInterval(Double(hour) * 3_605)
            try await fixture.setClock(at.addingTimeInterval(-60))
            try await fixture.postByHand("other_poster", title: "Post number \(hour)", content: "Read me.")
            let run = try await fixture.run([recipe, "--once", "--json"], at: at)
            #expect([0, 3].contains(run.status), "hour \(hour): \(run.stderr)")
            let report = try JSONValue.parse(Data(run.stdout.utf8))
            reasons += (report["items"]?.array ?? []).compactMap { item in
                item["outcome"]?.string == "skipped" ? item["reason"]?.string : nil
            }
        }
        #expect(try await fixture.titles(of: "reminder_bot").filter { $0 == "Hourly reminder" }.count == 1)
        let counters = try await fixture.counters()
        #expect(counters["comments_created"]?.int == 1, "\(counters)")
        #expect(counters["duplicate_contents"]?.int == 0, "\(counters)")
        let duplicates = reasons.filter { $0.hasPrefix("duplicate content") }
        #expect(duplicates.count == 6, "\(reasons)")
        #expect(duplicates.contains { $0.contains("\"Hourly reminder\"") })
        #expect(duplicates.contains { $0.contains("\"Great post!\"") })
    }

    /// Issue 33, observation 9: a dated title over the same body, daily, is the same content.
    /// The next day's post is not sent, with the state kept and with a new state file (whose
    /// ledger is seeded from the server); the server sees the body once.
    @Test(arguments: [false, true])
    func theSameBodyUnderANewTitleIsADuplicate(newStateFile: Bool) async throws {
        let name = newStateFile ? "reef_fresh" : "reef_kept"
        let (fixture, _) = try await RunFixture.establishedPoster(name)
        defer { Task { await fixture.stop() } }
        let recipe = try fixture.file(
            "reef.yaml",
            """
            agent: \(name)
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: log
                schedule: { cron: "0 11 * * *" }
                steps:
                  - post: { submolt: general, title: "Reef log {{ date }} #1", content: "Coral counts steady, water clear." }
            """)
        let dayOne = RunFixture.t0.addingTimeInterval(3_600 + 30)
        #expect(try await fixture.run([recipe, "--once"], at: dayOne).status == 0)
        if newStateFile { try FileManager.default.removeItem(atPath: fixture.statePath) }
        let dayTwo = try await fixture.run([recipe, "--once", "--json"], at: dayOne.addingTimeInterval(86_400))
        let items = try JSONValue.parse(Data(dayTwo.stdout.utf8))["items"]?.array ?? []
        let reason = items.first { $0["outcome"]?.string == "skipped" }?["reason"]?.string ?? ""
        #expect(reason.hasPrefix("duplicate content: the same text under another title as the post"), "\(items)")
        #expect(reason.contains("Reef log 2026-12-01 #1"), "\(reason)")
        #expect(try await fixture.titles(of: name).filter { $0.hasPrefix("Reef log") } == ["Reef log 2026-12-01 #1"])
        #expect(try await fixture.counter("duplicate_contents") == 0)
    }

    /// A long post that changes by one word an hour is a near-duplicate of the first: it is not
    /// sent, and the report says how much of it is the same.
    @Test
    func nearDuplicateIsNotSent() async throws {
        let (fixture, _) = try await RunFixture.establishedPoster("almost_same")
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0
        let text = (0..<70).map { "harbour\($0)" }.joined(separator: " ")
        let recipe = try fixture.file(
            "long.yaml",
            """
            agent: almost_same
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: long
                schedule: { every: 1h }
                steps:
                  - post: { submolt: general, title: Harbour notes, content: "\(text) at {{ date: HH }}" }
            """)
        var reasons: [String] = []
        for hour in 1...3 {
            let run = try await fixture.run(
                [recipe, "--once", "--json"], at: t0.addingTimeInterval(Double(hour) * 3_605))
            let report = try JSONValue.parse(Data(run.stdout.utf8))
            reasons += (report["items"]?.array ?? []).compactMap { $0["reason"]?.string }
        }
        #expect(try await fixture.titles(of: "almost_same").filter { $0 == "Harbour notes" }.count == 1)
        #expect(reasons.filter { $0.contains("% the same as the post sent") }.count == 2, "\(reasons)")
    }

    /// A run killed after its post left (the answer never read) leaves the text fingerprinted:
    /// the next hour's copy is not sent, whatever the first one's fate.
    @Test
    func killedAfterSendingStillGuards() async throws {
        let (fixture, _) = try await RunFixture.establishedPoster("killed_reminder")
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0
        let recipe = try fixture.file(
            "reminder.yaml",
            """
            agent: killed_reminder
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: remind
                schedule: { every: 1h }
                steps:
                  - post: { submolt: general, title: Stretch break, content: "Stand up and stretch." }
            """)
        let before = try await fixture.counter("posts_created")
        try await fixture.killDuringLatePost(recipe, at: t0.addingTimeInterval(3_605), delay: 5, untilPosts: before + 1)
        let next = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(2 * 3_605))
        #expect([0, 3].contains(next.status), "\(next.stderr)")
        #expect(try await fixture.counter("posts_created") == before + 1)
    }

    /// `duplicates: window:` is the recipe's: with a one-day window a twice-daily text goes out
    /// again after a day; the same recipe without it (30 days) skips the second day's copy.
    @Test
    func windowIsTheRecipes() async throws {
        let (fixture, _) = try await RunFixture.establishedPoster("window_poster")
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0
        func recipe(_ name: String, window: String) throws -> String {
            try fixture.file(
                name + ".yaml",
                """
                name: \(name)
                agent: window_poster
                time_zone: UTC
                base_url: \(fixture.base)
                \(window)
                jobs:
                  - id: daily
                    schedule: { every: 12h }
                    steps:
                      - post: { submolt: general, title: Daily tide table, content: "High water at noon." }
                """)
        }
        let short = try recipe("short", window: "duplicates: { window: 1d }")
        let long = try recipe("long", window: "")
        // Runs just after the 12:00 and 00:00 occurrences (every 12h counts from midnight UTC).
        let noon = t0.addingTimeInterval(86_400 + 7_205)
        let first = try await fixture.run([short, "--once"], at: noon)
        #expect(first.status == 0, "\(first.stderr)")
        // Twelve hours later, inside the day: skipped.
        let inside = try await fixture.run([short, "--once", "--json"], at: noon.addingTimeInterval(43_200))
        #expect(inside.stdout.contains("duplicate content: the same text"), "\(inside.stdout)")
        // A day on: the default window still holds the text; the one-day window has let it go.
        let later = noon.addingTimeInterval(86_400 + 30)
        let guarded = try await fixture.run([long, "--once", "--json"], at: later)
        #expect(guarded.stdout.contains("duplicate content: the same text as the post sent"), "\(guarded.stdout)")
        let again = try await fixture.run([short, "--once", "--json"], at: later)
        let outcomes = try JSONValue.parse(Data(again.stdout.utf8))["items"]?.array?.compactMap {
            $0["outcome"]?.string
        }
        #expect(outcomes == ["done"], "\(again.stdout)")
        #expect(try await fixture.titles(of: "window_poster").filter { $0 == "Daily tide table" }.count == 2)
    }
}

/// Issue 18: a new, emptied or second state file starts from what the server shows.
@Suite("State replaced: the server is the record")
struct StateReplacedTests {
    /// The state file deleted after the first post: the next run used to post the queue's first
    /// item again and exit 0. It reads the agent's posts first, finds it, and posts the next one;
    /// a second state file for the same agent does the same.
    @Test
    func lostOrSecondStateDoesNotRepost() async throws {
        let (fixture, recipe) = try await RunFixture.establishedPoster("forgetful_agent")
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0
        #expect(try await fixture.titles(of: "forgetful_agent") == ["Item 0"])
        try FileManager.default.removeItem(atPath: fixture.statePath)
        let afterLoss = try await fixture.run([recipe, "--once", "--json"], at: t0.addingTimeInterval(1_805))
        #expect(afterLoss.status == 0, "\(afterLoss.stderr)")
        #expect(afterLoss.stdout.contains("duplicate content"), "\(afterLoss.stdout)")
        #expect(try await fixture.titles(of: "forgetful_agent") == ["Item 0", "Item 1"])
        let second = fixture.home.path + "/second.sqlite"
        try await fixture.setClock(t0.addingTimeInterval(2 * 1_805))
        let other = try await fixture.home.run([
            "run", recipe, "--once", "--state", second, "--now", RunFixture.iso(t0.addingTimeInterval(2 * 1_805)),
        ])
        #expect(other.status == 0, "\(other.stderr)")
        #expect(try await fixture.titles(of: "forgetful_agent") == ["Item 0", "Item 1", "Item 2"])
    }

    /// Issue 34, observation 8: two state files used alternately for one agent (two hosts' cron
    /// jobs). Each was seeded from the server once, then trusted its own count: the first state's
    /// next item was the one the second had just posted, and it went out a second time. Every
    /// pass that plans a post reads what the server shows first; the item the other state posted
    /// is skipped as the agent's own and the next one goes out.
    @Test
    func statesUsedAlternatelyDoNotRepost() async throws {
        let fixture = try await RunFixture.start(sandboxArguments: ["--config", try RunCrashTests.config()])
        defer { Task { await fixture.stop() } }
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent("alternating_agent")
        try fixture.queue(count: 6)
        // Each state runs every other half hour: its own last run is an hour back.
        let recipe = try fixture.file(
            "alternating.yaml",
            """
            agent: alternating_agent
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: posts
                schedule: { every: 30m, missed: { run_once_within: 1h } }
                steps:
                  - post: { submolt: general, queue: queue.yaml }
            """)
        let states = [fixture.statePath, fixture.home.path + "/other.sqlite"]
        for step in 0...4 {
            let at = RunFixture.t0.addingTimeInterval(Double(step) * RunFixture.nextHalfHour)
            try await fixture.setClock(at)
            let run = try await fixture.home.run([
                "run", recipe, "--once", "--json", "--state", states[step % 2], "--now", RunFixture.iso(at),
            ])
            #expect(run.status == 0, "run \(step): \(run.stderr)")
            if step >= 2 {
                #expect(
                    run.stdout.contains("duplicate content: the same text as the post sent"),
                    "run \(step) did not see what the other state posted: \(run.stdout)")
                #expect(run.stderr.contains("this state did not send"), "run \(step): \(run.stderr)")
            }
        }
        #expect(
            try await fixture.titles(of: "alternating_agent") == ["Item 0", "Item 1", "Item 2", "Item 3", "Item 4"])
        #expect(try await fixture.counter("duplicate_contents") == 0)
    }
}
