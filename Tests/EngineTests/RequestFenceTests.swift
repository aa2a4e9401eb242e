import Foundation
import MoltbookAPI
import MoltipassEngine
import MoltipassTesting
import Storage
import Synchronization
import Testing

/// The lease fences requests, not only the journal (`LeaseWatch`): a turn sends a request only
/// while its lease has half its time left on the run loop's clock, renewing it first when it has
/// not; once the renewal fails (another runner took the agent, or the store does not answer) the
/// turn sends nothing more. `scripts/fleet-check` saw a runner cut off from PostgreSQL read a
/// post for an agent 25 s after its last renewal of a 15 s lease, while another runner held it.
///
/// Each case lets its event happen while the turn's first feed read is on its way, and counts the
/// requests the sandbox received after it. Two jobs are due at once, each reading a feed before
/// anything is journaled, so an unfenced turn sends the second read whatever its store says.
@Suite("Requests are fenced by the lease", .serialized)
struct RequestFenceTests {
    static let t0 = LeaseFenceTests.t0

    static let recipe = """
        agent: fenced
        time_zone: UTC
        jobs:
          - id: newest
            schedule: { at: 2026-03-02T00:00:00Z }
            steps:
              - vote: { ensure: upvoted, on: { source: global, sort: new, max_per_run: 2 } }
          - id: hottest
            schedule: { at: 2026-03-02T00:00:00Z }
            steps:
              - vote: { ensure: upvoted, on: { source: submolt, submolt: general, sort: hot, max_per_run: 2 } }
        """

    /// Every request that reaches the sandbox, and the test's event among them.
    final class RequestLog: HTTPTransport, Sendable {
        let inner: any HTTPTransport
        let lines = Mutex<[String]>([])

        init(_ inner: any HTTPTransport) { self.inner = inner }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            lines.withLock { $0.append("\(request.method.rawValue) \(request.url.path)") }
            return try await inner.send(request)
        }

        func mark(_ event: String) { lines.withLock { $0.append("-- \(event)") } }

        /// The requests received after the event.
        var afterEvent: [String] {
            let all = lines.withLock { $0 }
            guard let mark = all.firstIndex(where: { $0.hasPrefix("-- ") }) else { return [] }
            return Array(all[(mark + 1)...])
        }
    }

    enum Event: String, CaseIterable {
        /// Another runner takes the agent (the first one's clock has moved 11 minutes on, past
        /// its 10-minute lease).
        case takenOver
        /// The store stops answering and the clock moves 6 minutes on (past half the lease).
        case storeCut
        /// The clock moves 6 minutes on and nothing else happens: the lease is renewed, the
        /// turn goes on.
        case longTurn
    }

    static func isFeedRead(_ request: HTTPRequest) -> Bool {
        request.method == .get && (request.url.path.hasSuffix("/posts") || request.url.path.hasSuffix("/feed"))
    }

    /// A pass of `fenced` in which `event` happens during the first feed read; `clocked`: with
    /// the run loop's clock (the fence), or without (a fixed clock: no fence, the control).
    func pass(_ event: Event, clocked: Bool) async throws -> (report: RunReport, after: [String], votes: Int) {
        let world = try EngineWorld(start: Self.t0.addingTimeInterval(-2 * 86_400))
        defer { world.remove() }
        for (index, author) in ["north_wind", "south_wind"].enumerated() {
            world.clock.set(Self.t0.addingTimeInterval(-86_400 + Double(index) * 3_600))
            let client = try await world.register(author)
            _ = try await client.createPost(.text(submolt: "general", title: "By \(author)", content: "Vote here."))
        }
        try await world.register("fenced")
        world.clock.set(Self.t0)
        let recipe = try world.recipe("fenced.yaml", Self.recipe)
        let (clock, store) = (world.clock, world.store)
        let cutOff = RunTelemetryTests.CutOffStore(world.store)
        let log = RequestLog(world.transport)
        let transport = LeaseFenceTests.TakeoverTransport(inner: log, afterSending: true, trigger: Self.isFeedRead) {
            switch event {
            case .takenOver:
                clock.set(Self.t0.addingTimeInterval(11 * 60))
                _ = try await store.acquireLease(
                    account: "fenced", holder: "runner-b", now: Self.t0.addingTimeInterval(11 * 60), ttl: 600)
            case .storeCut:
                clock.set(Self.t0.addingTimeInterval(6 * 60))
                cutOff.cut.withLock { $0 = true }
            case .longTurn:
                clock.set(Self.t0.addingTimeInterval(6 * 60))
            }
            log.mark(event.rawValue)
        }
        let runner = world.runner([recipe], holder: "runner-a", transport: transport, store: cutOff) {
            configuration in
            configuration.leaseTTL = 600
            if clocked { configuration.leaseClock = { clock.now } }
        }
        let report = await runner.pass(now: Self.t0)
        cutOff.cut.withLock { $0 = false }
        let votes = try await world.store.read { try await $0.journalEntries(account: "fenced", states: [.done]) }
        return (report, log.afterEvent, votes.count)
    }

    /// Taken over during the turn: the fenced turn sends nothing more and reports the agent
    /// locked; unfenced, it reads the second feed under a lease it no longer holds.
    @Test func nothingIsSentOnceAnotherRunnerHoldsTheAgent() async throws {
        let fenced = try await pass(.takenOver, clocked: true)
        #expect(fenced.after.isEmpty, "\(fenced.after)")
        #expect(fenced.report.locked == ["fenced"], "\(fenced.report.items)")
        #expect(fenced.votes == 0)
        #expect(!fenced.report.items.contains { $0.outcome == .done || $0.outcome == .uncertain })

        let control = try await pass(.takenOver, clocked: false)
        #expect(control.after.contains { $0.hasPrefix("GET ") }, "\(control.after)")
        #expect(control.votes == 0)
    }

    /// The store stops answering past half the lease: the renewal fails, the turn sends nothing
    /// more, and says so as a transient failure (the pass then asks whether the store answers at
    /// all); unfenced, it goes on reading.
    @Test func nothingIsSentOnceTheLeaseCannotBeRenewed() async throws {
        let fenced = try await pass(.storeCut, clocked: true)
        #expect(fenced.after.isEmpty, "\(fenced.after)")
        #expect(fenced.report.locked == ["fenced"], "\(fenced.report.items)")
        #expect(fenced.report.transientFailures > 0)

        let control = try await pass(.storeCut, clocked: false)
        #expect(control.after.contains { $0.hasPrefix("GET ") }, "\(control.after)")
    }

    /// A long turn whose lease can be renewed goes on: the fence renews it and the votes go.
    @Test func aTurnThatRenewsItsLeaseGoesOn() async throws {
        let long = try await pass(.longTurn, clocked: true)
        #expect(long.after.contains { $0.hasPrefix("POST ") && $0.hasSuffix("/upvote") }, "\(long.after)")
        #expect(long.report.locked.isEmpty, "\(long.report.items)")
        #expect(long.votes >= 2, "\(long.report.items)")
    }
}
