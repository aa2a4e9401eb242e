import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 19, observation 3: deferred writes never expired and could not be cancelled — a post
/// deferred by a recipe since deleted was still sent days later with its old title, and there
/// was no way to see what waits or what was posted. Through the binary against the sandbox.
@Suite("Pending writes have a life")
struct PendingWritesTests {
    static let t0 = RunFixture.t0

    /// A new agent (1 post / 2 h) posting every 30 minutes from a queue: the 10:30 post waits
    /// until 12:00; `pending` shows it with its expiry (11:00, the job's next occurrence); at
    /// 11:00 it expires unsent and the 11:00 occurrence takes the same item; at 12:00 that item
    /// goes out. No item is skipped, none is sent twice, nothing stale is sent.
    @Test func deferredWritesExpireAndTheirItemGoesBack() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("expiring_poster")
        try fixture.queue(count: 5)
        let recipe = try fixture.postingRecipe("expiring_poster")
        #expect(try await fixture.run([recipe, "--once"], at: Self.t0).status == 0)
        let waiting = try await fixture.run([recipe, "--once"], at: Self.t0.addingTimeInterval(1_805))
        #expect(waiting.status == 4, "\(waiting.stderr)")

        let pending = try await fixture.home.run(["pending", recipe, "--state", fixture.statePath, "--json"])
        #expect(pending.status == 0, "\(pending.stderr)")
        let entries = try JSONValue.parse(Data(pending.stdout.utf8)).array ?? []
        #expect(entries.count == 1, "\(pending.stdout)")
        #expect(entries.first?["action"]?.string == "post to m/general: \"Item 1\"")
        #expect(entries.first?["expires"]?.string == "2026-12-01T11:00:00Z")
        #expect(entries.first?["cancellable"]?.bool == true)

        let eleven = try await fixture.run([recipe, "--once", "--json"], at: Self.t0.addingTimeInterval(3_605))
        let items = try JSONValue.parse(Data(eleven.stdout.utf8))["items"]?.array ?? []
        #expect(
            items.contains {
                $0["outcome"]?.string == "skipped"
                    && $0["reason"]?.string?.hasPrefix("expired 2026-12-01T11:00:00Z (the job's next occurrence)")
                        == true
            }, "\(eleven.stdout)")
        #expect(
            items.contains { $0["outcome"]?.string == "deferred" && $0["action"]?.string?.contains("Item 1") == true })
        // Half a minute past 12:00, not seconds: the run's clock starts at --now when the command
        // begins, and a write is charged when it leaves; on a loaded machine the 10:00 post left
        // many seconds after 10:00 (its cooldown with it), and a run 5 s past 12:00 waited still.
        // Within the minute a cron run may be late before its occurrence counts as missed.
        _ = try await fixture.run([recipe, "--once"], at: Self.t0.addingTimeInterval(2 * 3_600 + 30))
        #expect(try await fixture.titles(of: "expiring_poster") == ["Item 0", "Item 1"])
    }

    /// A waiting write whose job is gone (the recipe edited, or deleted and another given) is
    /// dropped with the reason and never sent.
    @Test func orphanedWritesAreNeverSent() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("orphan_poster")
        let recipe = try fixture.file(
            "orphan.yaml",
            """
            agent: orphan_poster
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: tuesday
                schedule: { every: 30m }
                expire_after: 7d
                steps:
                  - post: { submolt: general, title: "Harbour notes for {{ date: EEEE d MMMM HH:mm }}", content: "Notes." }
            """)
        #expect(try await fixture.run([recipe, "--once"], at: Self.t0).status == 0)
        #expect(try await fixture.run([recipe, "--once"], at: Self.t0.addingTimeInterval(1_805)).status == 4)
        // The job is replaced by another: the waiting "10:30" post belongs to nothing now.
        try fixture.file(
            "orphan.yaml",
            """
            agent: orphan_poster
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: follows
                schedule: { cron: "0 9 * * *" }
                steps:
                  - follow: [nobody_in_particular]
            """)
        let later = try await fixture.run([recipe, "--once", "--json"], at: Self.t0.addingTimeInterval(3 * 3_600))
        let items = try JSONValue.parse(Data(later.stdout.utf8))["items"]?.array ?? []
        #expect(
            items.contains {
                $0["reason"]?.string == "orphaned: job orphan_poster/tuesday is in none of the recipes given; not sent"
            }, "\(later.stdout)")
        #expect(try await fixture.titles(of: "orphan_poster") == ["Harbour notes for Tuesday 1 December 10:00"])
        let none = try await fixture.home.run(["pending", "--state", fixture.statePath])
        #expect(none.stdout == "nothing waiting\n", "\(none.stdout)")
    }

    /// `cancel` by a key prefix: the write is never sent, `history` shows it cancelled next to
    /// the post that went out (with its id), and a write that left cannot be cancelled.
    @Test func cancelAndHistory() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("cancelling_poster")
        let recipe = try fixture.file(
            "cancel.yaml",
            """
            agent: cancelling_poster
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: notes
                schedule: { every: 30m }
                expire_after: 1d
                steps:
                  - post: { submolt: general, title: "Note {{ date: HH:mm }}", content: "Body {{ date: HH:mm }}." }
            """)
        #expect(try await fixture.run([recipe, "--once"], at: Self.t0).status == 0)
        #expect(try await fixture.run([recipe, "--once"], at: Self.t0.addingTimeInterval(1_805)).status == 4)
        let pending = try await fixture.home.run(["pending", "--state", fixture.statePath, "--json"])
        let key = try #require((try JSONValue.parse(Data(pending.stdout.utf8)).array ?? []).first?["key"]?.string)
        let cancelled = try await fixture.home.run([
            "cancel", String(key.prefix(8)), "--state", fixture.statePath, "--now",
            RunFixture.iso(Self.t0.addingTimeInterval(1_900)),
        ])
        #expect(cancelled.status == 0, "\(cancelled.stderr)")
        #expect(cancelled.stdout.hasPrefix("cancelled \(key) cancelling_poster post to m/general: \"Note 10:30\""))
        let again = try await fixture.home.run([
            "cancel", key, "--state", fixture.statePath, "--json", "--now",
            RunFixture.iso(Self.t0.addingTimeInterval(1_910)),
        ])
        #expect(again.status == 1)
        #expect(again.stdout.contains("no waiting write has this key"), "\(again.stdout)")
        // 12:00: the next post goes; the cancelled one never does.
        _ = try await fixture.run([recipe, "--once"], at: Self.t0.addingTimeInterval(2 * 3_600 + 30))
        #expect(try await fixture.titles(of: "cancelling_poster") == ["Note 10:00", "Note 12:00"])
        let history = try await fixture.home.run([
            "history", "cancelling_poster", "--since", "24h", "--state", fixture.statePath, "--json",
            "--now", RunFixture.iso(Self.t0.addingTimeInterval(3 * 3_600)),
        ])
        #expect(history.status == 0, "\(history.stderr)")
        let past = try JSONValue.parse(Data(history.stdout.utf8)).array ?? []
        #expect(past.map { $0["outcome"]?.string } == ["done", "failed", "done"], "\(history.stdout)")
        #expect(past[0]["remote_id"]?.string?.isEmpty == false)
        #expect(past[1]["reason"]?.string?.hasPrefix("cancelled by an operator") == true)
    }
}
