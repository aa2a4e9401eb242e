import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan
import MoltipassTesting
import Storage
import Testing

/// A schedule faster than the limits, and `max_per_day`.
@Suite("Engine: backlog and max_per_day")
struct EngineBacklogTests {
    /// 2026-03-02T00:00:00Z.
    static let t0 = Date(timeIntervalSince1970: 1_772_409_600)

    /// Comments every 5 minutes against a 50-per-day limit over three days: the journal never
    /// holds more than one waiting comment for the job (a waiting one expires when the next
    /// occurrence comes, issue 19, or a later occurrence is skipped with the reason), the limit is
    /// used fully each day, and no comment is sent after its job's next occurrence.
    @Test func fastScheduleDoesNotPileUp() async throws {
        let world = try EngineWorld(start: Self.t0)
        defer { world.remove() }
        let host = try await world.register("backlog_host")
        let target = try await host.createPost(.text(submolt: "general", title: "Talk", content: "x")).value.item!.id
        try await world.register("backlog_agent")
        let recipe = try world.recipe(
            "fast.yaml",
            """
            agent: backlog_agent
            jobs:
              - id: chatter
                schedule: { every: 5m }
                steps:
                  - comment: { post: \(target), content: "At {{ date: yyyy-MM-dd HH:mm }}" }
            """)
        let runner = world.runner([recipe])
        let start = Self.t0.addingTimeInterval(25 * 3_600)
        world.clock.set(start)
        var maxPending = 0
        var skippedForBacklog = 0
        var end = start
        for day in 1...3 {
            end = start.addingTimeInterval(Double(day) * 86_400)
            for report in await world.drive(runner, until: end) {
                skippedForBacklog +=
                    report.items.filter {
                        ($0.reason ?? "").contains("still waiting") || ($0.reason ?? "").hasPrefix("expired")
                    }.count
            }
            let pending = try await world.store.read { try await $0.pendingJournalEntries(account: "backlog_agent") }
            maxPending = max(maxPending, pending.count)
        }
        let counters = world.model.counters()
        #expect(maxPending <= 1, "pending entries: \(maxPending)")
        #expect(skippedForBacklog > 500)
        #expect(counters.commentsCreated >= 3 * 50 - 1, "comments: \(counters.commentsCreated)")
        #expect(counters.rateLimited == 0)
        // No stale comment: every one is sent before its job's next occurrence (5 minutes on).
        let done = try await world.store.read { try await $0.journalEntries(account: "backlog_agent", states: [.done]) }
        let stale = done.filter { ($0.sentAt ?? $0.updatedAt).timeIntervalSince($0.occurrence) > 300 }
        #expect(stale.isEmpty, "stale sends: \(stale.count)")
    }

    /// `max_per_day: 3` on an hourly vote step over a selector: three votes per calendar day
    /// (in the recipe's zone), the rest reported skipped with the cap, the count starting again
    /// the next day.
    @Test func maxPerDayCapsEachDay() async throws {
        let world = try EngineWorld(start: Self.t0)
        defer { world.remove() }
        let host = try await world.register("cap_host")
        for index in 0..<12 {
            world.clock.set(Self.t0.addingTimeInterval(Double(index) * 7_200))
            _ = try await host.createPost(.text(submolt: "general", title: "Post \(index)", content: "c\(index)"))
        }
        try await world.register("cap_agent")
        let recipe = try world.recipe(
            "cap.yaml",
            """
            agent: cap_agent
            time_zone: Europe/Berlin
            jobs:
              - id: curate
                schedule: { every: 1h }
                steps:
                  - vote:
                      ensure: upvoted
                      on: { source: submolt, submolt: general, sort: new, limit: 25 }
                      max_per_day: 3
            """)
        let runner = world.runner([recipe])
        // Midnight in Berlin is 23:00 UTC: start there so two whole local days are driven.
        let start = Date(timeIntervalSince1970: 1_772_492_400)  // 2026-03-02T23:00:00Z
        world.clock.set(start)
        let before = world.model.counters().votesCast
        let firstDay = await world.drive(runner, until: start.addingTimeInterval(86_400))
        #expect(world.model.counters().votesCast - before == 3)
        #expect(firstDay.contains { $0.items.contains { ($0.reason ?? "").contains("max_per_day 3 reached") } })
        await world.drive(runner, until: start.addingTimeInterval(2 * 86_400))
        #expect(world.model.counters().votesCast - before == 6)
        #expect(world.model.counters().votesRemoved == 0)
    }
}
