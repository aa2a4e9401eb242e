import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan
import MoltipassTesting
import Storage
import Testing

/// A max-rate recipe over a simulated day against the in-process sandbox with the real limits.
@Suite("Engine: a simulated day at the limits")
struct EngineSimulatedDayTests {
    /// 2026-03-02T00:00:00Z.
    static let t0 = Date(timeIntervalSince1970: 1_772_409_600)

    /// Over 24 h the sandbox serves no 429 and sees no duplicate, and the runner gets all 48
    /// posts (1 / 30 min) and all 50 comments (50 / day) the limits allow, queue items in order;
    /// after the sandbox tightens the post cooldown to 1 h, at most one post 429 follows and
    /// posting continues hourly, still in queue order.
    @Test func maxRateDayThenTightenedLimit() async throws {
        let world = try EngineWorld(start: Self.t0)
        defer { world.remove() }
        let host = try await world.register("day_host")
        let target = try await host.createPost(.text(submolt: "general", title: "Comment here", content: "x"))
            .value.item!.id
        try await world.register("day_runner")
        try world.queue("queue.yaml", count: 200)
        let recipe = try world.recipe(
            "max-rate.yaml",
            """
            agent: day_runner
            time_zone: UTC
            jobs:
              - id: posts
                schedule: { every: 10m }
                steps:
                  - post: { submolt: general, queue: queue.yaml }
              - id: comments
                schedule: { every: 5m }
                steps:
                  - comment:
                      post: \(target)
                      content: "Note {{ date: yyyy-MM-dd HH:mm:ss }}"
            """)
        let runner = world.runner([recipe])
        // The agent is 25 h old: the established limits apply.
        let dayStart = Self.t0.addingTimeInterval(25 * 3_600)
        world.clock.set(dayStart)
        let before = world.model.counters()
        let reports = await world.drive(runner, until: dayStart.addingTimeInterval(86_400))
        let day = world.model.counters()
        #expect(reports.count < 50_000)
        #expect(day.rateLimited == 0, "429s: \(day.rateLimitedByClass)")
        #expect(day.duplicateContents == 0)
        #expect(day.postsCreated - before.postsCreated == 48)
        #expect(day.commentsCreated - before.commentsCreated == 50)
        let titles = try await world.titles(of: "day_runner", reader: host)
        #expect(titles == (0..<48).map { "Queue item \($0)" })

        world.model.configure { $0.limits.postCooldownSeconds = 3_600 }
        let tightenedAt = world.clock.now
        await world.drive(runner, until: tightenedAt.addingTimeInterval(6 * 3_600))
        let after = world.model.counters()
        #expect((after.rateLimitedByClass["post"] ?? 0) <= 1, "post 429s: \(after.rateLimitedByClass)")
        #expect(after.rateLimited - (after.rateLimitedByClass["post"] ?? 0) == 0)
        #expect(after.duplicateContents == 0)
        #expect(after.postsCreated - day.postsCreated >= 5)
        let later = try await world.titles(of: "day_runner", reader: host)
        #expect(
            later
                == (0..<titles.count + after.postsCreated - day.postsCreated).map {
                    "Queue item \($0)"
                }, "\(later.suffix(10))")
        let failed = try await world.store.read {
            try await $0.journalEntries(account: "day_runner", states: [.failed])
        }
        #expect(failed.filter { $0.nextAttemptAt == nil }.isEmpty, "writes given up: \(failed.map(\.lastError))")
    }
}
