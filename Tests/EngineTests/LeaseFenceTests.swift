import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassEngine
import MoltipassTesting
import Storage
import Synchronization
import Testing

/// The lease as a fence: a run whose agent another runner took over mid-pass (here, a runner
/// whose clock is 11 minutes ahead sees the lease expired) never sends a write after that and
/// never journals one done; the new holder reads back what was in flight. The takeover happens
/// inside the first run's own request, through a transport that lets it in at that moment.
@Suite("Leases fence the journal", .serialized)
struct LeaseFenceTests {
    /// 2026-03-02T00:00:00Z.
    static let t0 = Date(timeIntervalSince1970: 1_772_409_600)

    /// Runs `takeOver` once, when the first request matching `trigger` is sent, before (or
    /// after) passing it on.
    final class TakeoverTransport: HTTPTransport, Sendable {
        let inner: any HTTPTransport
        let trigger: @Sendable (HTTPRequest) -> Bool
        let afterSending: Bool
        let takeOver: @Sendable () async throws -> Void
        let done = Mutex(false)

        init(
            inner: any HTTPTransport, afterSending: Bool, trigger: @escaping @Sendable (HTTPRequest) -> Bool,
            takeOver: @escaping @Sendable () async throws -> Void
        ) {
            self.inner = inner
            self.afterSending = afterSending
            self.trigger = trigger
            self.takeOver = takeOver
        }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let fire =
                trigger(request)
                && done.withLock { was in
                    defer { was = true }
                    return !was
                }
            if fire, !afterSending { try await takeOver() }
            let response = try await inner.send(request)
            if fire, afterSending { try await takeOver() }
            return response
        }
    }

    static let recipe = """
        agent: fenced
        time_zone: UTC
        jobs:
          - id: note
            schedule: { at: 2026-03-02T00:00:00Z }
            steps:
              - post: { submolt: general, title: "Fenced note", content: "Sent once, whoever holds the lease." }
        """

    static func isPost(_ request: HTTPRequest) -> Bool {
        request.method == .post && request.url.path.hasSuffix("/posts")
    }

    /// Taken over while the post is in flight: the first run reports it applied but not
    /// journaled (never done), the entry stays `sent`, and the new holder reads it back: one
    /// post on the server.
    @Test func takenOverMidRequestNeverJournalsDone() async throws {
        let world = try EngineWorld(start: Self.t0.addingTimeInterval(-2 * 86_400))
        defer { world.remove() }
        let reader = try await world.register("fenced")
        world.clock.set(Self.t0)
        let recipe = try world.recipe("fenced.yaml", Self.recipe)
        let store = world.store
        let transport = TakeoverTransport(inner: world.transport, afterSending: true, trigger: Self.isPost) {
            _ = try await store.acquireLease(
                account: "fenced", holder: "runner-b", now: Self.t0.addingTimeInterval(11 * 60), ttl: 600)
        }
        let first = await world.runner([recipe], holder: "runner-a", transport: transport).pass(now: Self.t0)
        let line = try #require(first.items.first { $0.action.hasPrefix("post to") })
        #expect(line.outcome == .uncertain, "\(first.items)")
        #expect(line.reason?.contains("another runner holds the lease of fenced now") == true, "\(line.reason ?? "")")
        #expect(!first.items.contains { $0.outcome == .done })
        #expect(first.locked == ["fenced"])
        #expect(try await world.store.read { try await $0.journalEntries(account: "fenced", states: [.done]) }.isEmpty)

        let later = Self.t0.addingTimeInterval(11 * 60)
        world.clock.set(later)
        let second = await world.runner([recipe], holder: "runner-b").pass(now: later)
        #expect(
            second.items.contains { $0.outcome == .done && $0.reason == "read back: it had been applied" },
            "\(second.items)")
        let titles = try await world.titles(of: "fenced", reader: reader)
        #expect(titles == ["Fenced note"])
    }

    /// Taken over before the post left: the first run does not send it at all, and says why.
    @Test func takenOverBeforeSendingNeverSends() async throws {
        let world = try EngineWorld(start: Self.t0.addingTimeInterval(-2 * 86_400))
        defer { world.remove() }
        let reader = try await world.register("fenced")
        world.clock.set(Self.t0)
        let recipe = try world.recipe("fenced.yaml", Self.recipe)
        let store = world.store
        // The first request of the pass (the agent's identity, the ledger's seeding read) lets
        // the other runner in: the post is decided after it.
        let transport = TakeoverTransport(inner: world.transport, afterSending: true, trigger: { _ in true }) {
            _ = try await store.acquireLease(
                account: "fenced", holder: "runner-b", now: Self.t0.addingTimeInterval(11 * 60), ttl: 600)
        }
        let first = await world.runner([recipe], holder: "runner-a", transport: transport).pass(now: Self.t0)
        // Nothing of the agent journaled or sent; the agent reported locked (as when a pass cannot
        // take the lease), not a failure.
        #expect(first.locked == ["fenced"], "\(first.items)")
        #expect(first.transientFailures == 0)
        #expect(!first.items.contains { $0.outcome == .done || $0.outcome == .uncertain })
        #expect(try await world.store.read { try await $0.pendingJournalEntries(account: "fenced") }.isEmpty)
        #expect(try await world.titles(of: "fenced", reader: reader).isEmpty)
    }

    /// The fencing token: the lease went to another runner and came back to this one (same
    /// holder, a new token) while the pass was deciding; the pass that started under the old
    /// token sends and journals nothing. Checked by holder alone, the old pass would have posted.
    @Test func aLeaseTakenBackUnderANewTokenStillFencesTheOldPass() async throws {
        let world = try EngineWorld(start: Self.t0.addingTimeInterval(-2 * 86_400))
        defer { world.remove() }
        let reader = try await world.register("fenced")
        world.clock.set(Self.t0)
        let recipe = try world.recipe("fenced.yaml", Self.recipe)
        let store = world.store
        let transport = TakeoverTransport(inner: world.transport, afterSending: true, trigger: { _ in true }) {
            let later = Self.t0.addingTimeInterval(11 * 60)
            _ = try await store.acquireLease(account: "fenced", holder: "runner-b", now: later, ttl: 600)
            _ = try await store.releaseLease(account: "fenced", holder: "runner-b")
            _ = try await store.acquireLease(account: "fenced", holder: "runner-a", now: later, ttl: 600)
        }
        let first = await world.runner([recipe], holder: "runner-a", transport: transport).pass(now: Self.t0)
        #expect(first.locked == ["fenced"], "\(first.items)")
        #expect(!first.items.contains { $0.outcome == .done || $0.outcome == .uncertain })
        #expect(try await world.store.read { try await $0.pendingJournalEntries(account: "fenced") }.isEmpty)
        #expect(try await world.titles(of: "fenced", reader: reader).isEmpty)
        let lease = try await world.store.read { try await $0.lease(account: "fenced") }
        #expect(lease?.holder == "runner-a" && lease?.token == 3, "\(String(describing: lease))")
    }

    /// A long pass keeps its lease: the lease is renewed from the run loop's clock each time a
    /// write is recorded, so a runner whose clock says the pass began 11 minutes ago (ttl 10)
    /// still finds it held when the pass spent 9 of those minutes on a slow request. On the pass's
    /// own `now` alone the lease would have looked expired, and been taken.
    @Test func aLongPassKeepsItsLease() async throws {
        for renews in [true, false] {
            let world = try EngineWorld(start: Self.t0.addingTimeInterval(-2 * 86_400))
            defer { world.remove() }
            try await world.register("fenced")
            world.clock.set(Self.t0)
            let recipe = try world.recipe("fenced.yaml", Self.recipe)
            let clock = world.clock
            // The post's request takes 9 minutes.
            let slow = TakeoverTransport(inner: world.transport, afterSending: true, trigger: Self.isPost) {
                clock.set(Self.t0.addingTimeInterval(9 * 60))
            }
            let daemon = world.runner([recipe], holder: "runner-a", transport: slow) { configuration in
                configuration.releaseLeases = false
                if renews { configuration.leaseClock = { clock.now } }
            }
            let first = await daemon.pass(now: Self.t0)
            #expect(first.items.contains { $0.action.hasPrefix("post to") && $0.outcome == .done }, "\(first.items)")
            let later = Self.t0.addingTimeInterval(11 * 60)
            world.clock.set(later)
            let other = await world.runner([recipe], holder: "runner-b").pass(now: later)
            #expect(other.locked == (renews ? ["fenced"] : []), "renews \(renews): \(other.locked)")
            let lease = try await world.store.read { try await $0.lease(account: "fenced") }
            #expect(lease?.holder == (renews ? "runner-a" : nil), "\(String(describing: lease))")
        }
    }
}
