import Foundation
import MoltbookAPI
import MoltipassEngine
import MoltipassTesting
import Testing

/// A write is charged to the limiter when it leaves, by the run loop's clock, not when the pass
/// began: a runner driving many agents spends minutes on one pass, and a post charged at the
/// pass's start lets the agent's next post leave as many minutes before the server's cooldown
/// ends (`scripts/fleet-check` saw 429s from a runner driving 100 agents).
@Suite("Writes are charged when they leave")
struct ChargeTimeTests {
    /// 2026-03-02T00:00:00Z.
    static let t0 = Date(timeIntervalSince1970: 1_772_409_600)

    static func recipe(_ agent: String) -> String {
        """
        agent: \(agent)
        time_zone: UTC
        jobs:
          - id: first
            schedule: { at: 2026-03-02T00:00:00Z }
            steps:
              - post: { submolt: general, title: "First of \(agent)", content: "The first post." }
          - id: second
            schedule: { at: 2026-03-02T00:31:00Z }
            steps:
              - post: { submolt: general, title: "Second of \(agent)", content: "The second post." }
        """
    }

    /// Two agents in one pass; the first agent's post takes ten minutes to answer, so the
    /// second's post leaves at 00:10. At 00:31 the first posts again (31 minutes after its
    /// first), and the second waits for 00:40 by its own limiter. Charged at the pass's 00:00
    /// instead (no run loop clock, as in `plan`), its own limiter let the second's post go at
    /// 00:31, and only the server held it (it saw the first at 00:10): a 429 on moltbook.com.
    @Test func theSecondAgentsPostIsChargedWhenItLeft() async throws {
        for clocked in [true, false] {
            let world = try EngineWorld(start: Self.t0.addingTimeInterval(-2 * 86_400))
            defer { world.remove() }
            try await world.register("a_first")
            try await world.register("b_second")
            world.clock.set(Self.t0)
            let recipes = [
                try world.recipe("a.yaml", Self.recipe("a_first")), try world.recipe("b.yaml", Self.recipe("b_second")),
            ]
            let clock = world.clock
            let slow = LeaseFenceTests.TakeoverTransport(
                inner: world.transport, afterSending: true, trigger: LeaseFenceTests.isPost
            ) { clock.set(Self.t0.addingTimeInterval(10 * 60)) }
            let runner = world.runner(recipes, transport: slow) { configuration in
                if clocked { configuration.leaseClock = { clock.now } }
            }
            // A pass before anything is due: each agent's schedule has a tick, so an occurrence
            // found a while after its time (b_second's, at 00:10) is late, not missed.
            world.clock.set(Self.t0.addingTimeInterval(-60))
            _ = await runner.pass(now: Self.t0.addingTimeInterval(-60))
            world.clock.set(Self.t0)
            let first = await runner.pass(now: Self.t0)
            #expect(first.items.filter { $0.outcome == .done }.count == 2, "\(first.items)")

            let later = Self.t0.addingTimeInterval(31 * 60)
            world.clock.set(later)
            let second = await world.runner(recipes) { configuration in
                if clocked { configuration.leaseClock = { clock.now } }
            }.pass(now: later)
            let items = second.items.filter { $0.action.contains("Second of") }
            #expect(items.contains { $0.agent == "a_first" && $0.outcome == .done }, "\(items)")
            let waiting = try #require(items.first { $0.agent == "b_second" }, "\(second.items)")
            #expect(waiting.outcome == .deferred)
            if clocked {
                #expect(waiting.reason?.contains("post.cooldown") == true, "\(waiting)")
                #expect(waiting.until == Self.t0.addingTimeInterval(40 * 60), "\(waiting)")
                #expect(world.model.counters().rateLimited == 0)
            } else {
                // Its own limiter let it go at 00:31; the server held it (a 429, or on a server
                // that reports the post limiter in `X-RateLimit-*`, the hint of the first post).
                #expect(waiting.reason?.contains("post.cooldown") == false, "\(waiting)")
                #expect(waiting.reason?.contains("429") == true || waiting.reason?.contains("server_hint") == true)
            }
        }
    }
}
