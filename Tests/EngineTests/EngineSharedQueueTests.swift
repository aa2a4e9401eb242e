import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan
import MoltipassTesting
import Storage
import Testing

/// Two jobs of one recipe posting from one content queue, planned in the same pass (and
/// journaled in one transaction).
@Suite("Engine: a queue shared by two jobs")
struct EngineSharedQueueTests {
    /// 2026-03-02T00:00:00Z.
    static let t0 = Date(timeIntervalSince1970: 1_772_409_600)

    /// The first job takes a queue item and then its selector read is refused (no such
    /// submolt): the unrelated post still goes out, the refusal is reported, and the second
    /// job, due in the same pass, takes the next item (nothing skipped, nothing taken twice).
    @Test(.pinsItsDialect) func jobGivenUpHalfWayLeavesItsQueueItem() async throws {
        // moltbook.com answers a missing submolt with 404 (the mock's feed fallback finds nothing).
        let world = try EngineWorld(config: SandboxConfig(dialect: .moltbookCom, autoClaim: true), start: Self.t0)
        defer { world.remove() }
        try await world.register("queue_agent")
        try world.queue("shared.yaml", count: 10)
        let start = Self.t0.addingTimeInterval(25 * 3_600)
        let iso = ISO8601DateFormatter().string(from: start)
        let recipe = try world.recipe(
            "shared-recipe.yaml",
            """
            agent: queue_agent
            jobs:
              - id: first
                schedule: { every: 1h, start: \(iso) }
                steps:
                  - post: { submolt: general, queue: shared.yaml }
                  - comment:
                      on: { source: submolt, submolt: nowhere-to-be-found }
                      content: "Never planned"
              - id: second
                schedule: { every: 1h, start: \(iso) }
                steps:
                  - post: { submolt: general, queue: shared.yaml }
            """)
        let runner = world.runner([recipe])
        world.clock.set(start)
        let report = await runner.pass(now: start)
        #expect(report.items.contains { $0.job == "first" && $0.outcome == .failed })
        let journal = try await world.store.read {
            try await $0.journalEntries(account: "queue_agent", states: Set(JournalState.allCases))
        }
        let titles = Dictionary(
            uniqueKeysWithValues: journal.map { ($0.job, $0.payload.flatMap(PlannedWrite.init(payload:))?.title) })
        #expect(titles == ["first": "Queue item 0", "second": "Queue item 1"])
    }
}
