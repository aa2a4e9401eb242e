import Foundation
import MoltipassEngine
import Recipes
import Storage
import Testing

@testable import MoltipassCommands

/// A daemon is judged by its own lease time: its heartbeat says it, and `status`, the fleet and
/// `state migrate` count a daemon killed 5 minutes ago with a 3-minute lease as gone, not as a
/// runner for the default 10 minutes.
@Suite struct HeartbeatLeaseTimeTests {
    /// 2026-03-02T00:00:00Z.
    static let t0 = Date(timeIntervalSince1970: 1_772_409_600)

    @Test func theHeartbeatSaysTheLeaseTime() {
        let said = Heartbeat(
            holder: "daemon-a", startedAt: Self.t0, lastTick: Self.t0, detail: "runner", leaseTime: 180)
        #expect(said.detail == "runner; lease 180s")
        #expect(said.leaseTime == 180)
        for old in ["runner", "agent fleet_1", "", "agent a; lease s", "agent a; lease -5s", "agent a; lease 12"] {
            #expect(Heartbeat(holder: "daemon-a", startedAt: Self.t0, lastTick: Self.t0, detail: old).leaseTime == nil)
        }
    }

    /// Both heartbeats a runner writes (the fleet's and the end of an agent's pass) say the
    /// runner's lease time.
    @Test(arguments: [false, true])
    func aRunnerWritesItsLeaseTime(spread: Bool) async throws {
        let world = try EngineWorld(start: Self.t0.addingTimeInterval(-2 * 86_400))
        defer { world.remove() }
        try await world.register("clerk")
        let recipe = try world.recipe(
            "clerk.yaml",
            """
            agent: clerk
            jobs:
              - id: hourly
                schedule: { every: 1h }
                steps:
                  - post: { submolt: general, title: "Clerk {{ date: HH:mm }}", content: "Hourly note." }
            """)
        let runner = world.runner([recipe], holder: "daemon-clerk-0001@host") { configuration in
            configuration.releaseLeases = false
            configuration.spreadAgents = spread
            configuration.leaseTTL = 180
        }
        world.clock.set(Self.t0)
        _ = await runner.pass(now: Self.t0)
        let beats = try await world.store.read { try await $0.heartbeats() }
        #expect(beats.map(\.holder) == ["daemon-clerk-0001@host"])
        #expect(beats.first?.leaseTime == 180, "\(beats)")
    }

    /// Four processes in a real state file, read at t0 + 25 min: a daemon with a 3-minute lease
    /// last seen 5 minutes ago (gone), one with a 30-minute lease seen 20 minutes ago (alive), one
    /// whose heartbeat predates the lease time seen 5 minutes ago (the default 10 minutes: alive),
    /// and a `run --once` run a minute ago (never a runner).
    @Test func statusAndMigrateJudgeEachDaemonByItsLease() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heartbeats-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state.sqlite").path
        let now = Self.t0.addingTimeInterval(25 * 60)
        func ago(_ minutes: Double) -> Date { now.addingTimeInterval(-minutes * 60) }
        let store = try await SQLiteStateStore.open(path: path)
        let beats = [
            Heartbeat(holder: "daemon-short", startedAt: Self.t0, lastTick: ago(5), detail: "runner", leaseTime: 180),
            Heartbeat(holder: "daemon-long", startedAt: Self.t0, lastTick: ago(20), detail: "agent a", leaseTime: 1800),
            Heartbeat(holder: "daemon-old", startedAt: Self.t0, lastTick: ago(5), detail: "runner"),
            Heartbeat(holder: "once-run", startedAt: Self.t0, lastTick: ago(1), detail: "agent a", leaseTime: 180),
        ]
        for beat in beats { try await store.recordHeartbeat(beat) }
        try store.close()

        let reopened = try await SQLiteStateStore.open(path: path)
        defer { try? reopened.close() }
        let report = try await StatusReport.make(recipes: [], store: reopened, now: now)
        #expect(report.runners.map(\.holder) == ["daemon-old", "daemon-long"])
        #expect(report.lastTick == ago(1))

        let heartbeats = try await reopened.read { try await $0.heartbeats() }
        let refusal = #expect(throws: StorageError.self) {
            try StateMove.refuseRunners(leases: [], heartbeats: heartbeats, path: path, now: now)
        }
        let message = refusal?.message ?? ""
        #expect(message.contains("daemon-long was running") && message.contains("daemon-old was running"), "\(message)")
        #expect(!message.contains("daemon-short") && !message.contains("once-run"), "\(message)")
        #expect(message.contains("is forgotten after its lease time, 30 minutes"), "\(message)")
        // Once the long lease ran out too, nothing holds the migration back.
        #expect(throws: Never.self) {
            try StateMove.refuseRunners(
                leases: [], heartbeats: heartbeats.filter { $0.holder != "daemon-old" }, path: path,
                now: now.addingTimeInterval(11 * 60))
        }
    }
}
