import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan
import MoltipassTesting
import Storage
import Synchronization
import Testing

/// Writes whose outcome was lost (the connection dropped after the server applied them, or
/// before it did) are reconciled by reading back before anything is sent again.
@Suite("Engine: reconciliation of lost outcomes")
struct EngineReconciliationTests {
    /// 2026-03-02T00:00:00Z.
    static let t0 = Date(timeIntervalSince1970: 1_772_409_600)

    static func world(agent: String) async throws -> (EngineWorld, String) {
        let world = try EngineWorld(start: t0)
        let host = try await world.register("host_\(agent)")
        let target = try await host.createPost(.text(submolt: "general", title: "Target", content: "x")).value.item!.id
        try await world.register(agent)
        world.clock.set(t0.addingTimeInterval(25 * 3_600))
        return (world, target)
    }

    /// A post applied by the server whose response was lost: journaled uncertain, found by
    /// reading back on the next pass, marked done with its id, never posted twice.
    @Test func appliedPostIsReadBackNotResent() async throws {
        let (world, _) = try await Self.world(agent: "drop_poster")
        defer { world.remove() }
        let recipe = try world.recipe(
            "drop.yaml",
            """
            agent: drop_poster
            jobs:
              - id: once
                schedule: { every: 1h }
                steps:
                  - post: { submolt: general, title: "Only once", content: "Body" }
            """)
        let runner = world.runner([recipe])
        world.model.injectFaults([FaultSpec(mode: .drop, pathPrefix: "/api/v1/posts", method: "POST", count: 1)])
        let first = await runner.pass(now: world.clock.now)
        #expect(first.count(.uncertain) == 1, "\(first.summary)")
        #expect(world.model.counters().postsCreated == 2)  // the host's and this one, applied
        let uncertain = try await world.store.read { try await $0.uncertainJournalEntries(account: "drop_poster") }
        #expect(uncertain.count == 1)

        world.clock.set(world.clock.now.addingTimeInterval(60))
        let second = await runner.pass(now: world.clock.now)
        let settled = try #require(second.items.first { $0.outcome == .done })
        #expect(settled.reason == "read back: it had been applied")
        #expect(world.model.counters().postsCreated == 2)
        #expect(world.model.counters().duplicateContents == 0)
        let entry = try #require(try await world.store.journalEntry(key: uncertain[0].key))
        #expect(entry.state == .done)
        #expect(entry.remoteID != nil)
    }

    /// A post the server never applied (dropped before): read back finds nothing, so it is sent
    /// again — once.
    @Test func unappliedPostIsSentAgainOnce() async throws {
        let (world, _) = try await Self.world(agent: "before_poster")
        defer { world.remove() }
        let recipe = try world.recipe(
            "before.yaml",
            """
            agent: before_poster
            jobs:
              - id: once
                schedule: { every: 1h }
                steps:
                  - post: { submolt: general, title: "Lost on the way", content: "Body" }
            """)
        let runner = world.runner([recipe])
        world.model.injectFaults([
            FaultSpec(mode: .dropBefore, pathPrefix: "/api/v1/posts", method: "POST", count: 1)
        ])
        let first = await runner.pass(now: world.clock.now)
        #expect(first.count(.uncertain) == 1, "\(first.summary)")
        #expect(world.model.counters().postsCreated == 1)
        // The lost attempt used the local post budget (the limiter cannot know it was never
        // applied): the read-back happens first, the send when the 30-minute spacing allows.
        world.clock.set(world.clock.now.addingTimeInterval(60))
        let early = await runner.pass(now: world.clock.now)
        #expect(early.count(.deferred) == 1, "\(early.summary)")
        #expect(world.model.counters().postsCreated == 1)
        world.clock.set(world.clock.now.addingTimeInterval(30 * 60))
        let second = await runner.pass(now: world.clock.now)
        #expect(second.count(.done) == 1, "\(second.summary)")
        #expect(world.model.counters().postsCreated == 2)
        world.clock.set(world.clock.now.addingTimeInterval(300))
        _ = await runner.pass(now: world.clock.now)
        #expect(world.model.counters().postsCreated == 2)
    }

    /// A vote whose response was lost is never sent blindly (a second vote would toggle it
    /// off): the next pass reads the post's vote field, finds it landed, and journals it done.
    @Test func lostVoteIsNeverResent() async throws {
        let (world, target) = try await Self.world(agent: "drop_voter")
        defer { world.remove() }
        let recipe = try world.recipe(
            "vote.yaml",
            """
            agent: drop_voter
            jobs:
              - id: vote
                schedule: { every: 1h }
                steps:
                  - vote: { post: \(target), ensure: upvoted }
            """)
        let runner = world.runner([recipe])
        world.model.injectFaults([FaultSpec(mode: .drop, pathPrefix: "/api/v1/posts/", method: "POST", count: 1)])
        let first = await runner.pass(now: world.clock.now)
        #expect(first.count(.uncertain) == 1, "\(first.summary)")
        let cast = world.model.counters().votesCast
        #expect(cast == 1)
        var done = 0
        for _ in 1...5 {
            world.clock.set(world.clock.now.addingTimeInterval(3_600))
            let report = await runner.pass(now: world.clock.now)
            done += report.count(.done)
        }
        // Read back where the server shows the agent's vote; where it does not (the community
        // mock), the outcome stays unknown and the vote is never sent again.
        #expect(done == (TestDialect.current == .minimalMock ? 0 : 1))
        let counters = world.model.counters()
        #expect(counters.votesCast == cast)
        #expect(counters.votesRemoved == 0)
    }
}

/// Refuses the connection for the first `count` POSTs to `/posts`, then forwards.
final class RefusingTransport: HTTPTransport, Sendable {
    let inner: any HTTPTransport
    let remaining: Mutex<Int>

    init(inner: any HTTPTransport, count: Int) {
        self.inner = inner
        self.remaining = Mutex(count)
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let refuse =
            request.method == .post && request.url.path.hasSuffix("/posts")
            && remaining.withLock { left in
                guard left > 0 else { return false }
                left -= 1
                return true
            }
        if refuse { throw TransportError.connectFailed(detail: "connection refused (test)") }
        return try await inner.send(request)
    }
}

@Suite("Engine: order after a refused connection")
struct EngineRetryOrderTests {
    /// The first queue post meets a refused connection (retry in 60 s); when the next pass comes
    /// before that, the second queue item must not overtake it: posts stay in queue order.
    @Test func retryingPostIsNotOvertaken() async throws {
        let world = try EngineWorld(start: EngineReconciliationTests.t0)
        defer { world.remove() }
        try await world.register("order_agent")
        try world.queue("queue.yaml", count: 10)
        let recipe = try world.recipe(
            "order.yaml",
            """
            agent: order_agent
            limits: { post_interval: 1s, i_know_the_server_limits: true }
            jobs:
              - id: a
                schedule: { every: 1h }
                steps:
                  - post: { submolt: general, queue: queue.yaml }
              - id: b
                schedule: { every: 1h }
                steps:
                  - post: { submolt: general, queue: queue.yaml }
            """)
        let refusing = RefusingTransport(inner: world.transport, count: 1)
        let runner = world.runner([recipe], transport: refusing)
        world.model.configure { $0.limits.postCooldownSeconds = nil }
        let start = EngineReconciliationTests.t0.addingTimeInterval(25 * 3_600)
        world.clock.set(start)
        let first = await runner.pass(now: start)
        #expect(first.transientFailures == 1, "\(first.summary)")
        world.clock.set(start.addingTimeInterval(20))
        _ = await runner.pass(now: world.clock.now)
        world.clock.set(start.addingTimeInterval(90))
        _ = await runner.pass(now: world.clock.now)
        world.clock.set(start.addingTimeInterval(95))
        _ = await runner.pass(now: world.clock.now)
        let reader = try await world.register("order_reader")
        let titles = try await world.titles(of: "order_agent", reader: reader)
        #expect(titles == ["Queue item 0", "Queue item 1"], "\(titles)")
    }
}
