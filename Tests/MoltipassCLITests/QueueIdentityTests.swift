import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 18: a content queue's items are identified by what they say, not by their place in the
/// file or the recipe's name. Through the binary, against the sandbox.
@Suite("Queue items by content")
struct QueueIdentityTests {
    static let t0 = RunFixture.t0

    /// A fixture with agent `name`, two days old (established limits), and `items` in `queue.yaml`.
    static func fixture(_ name: String, items: [String]) async throws -> RunFixture {
        let fixture = try await RunFixture.start(sandboxArguments: ["--config", try RunCrashTests.config()])
        try await fixture.setClock(t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent(name)
        try write(items, fixture)
        return fixture
    }

    static func write(_ items: [String], _ fixture: RunFixture) throws {
        try fixture.file(
            "queue.yaml", items.map { "- title: \"\($0)\"\n  content: \"About \($0).\"" }.joined(separator: "\n"))
    }

    /// The run at half hour `step`, a minute later each step: a run's clock starts at `--now` and runs on,
    /// and its post is charged when it leaves, so on a loaded machine (seconds of start-up) a step of 30 min
    /// and 5 s found the next post still inside the cooldown (the dialect matrix's minimal-mock pass, CI
    /// 2026-12-02). A minute of slack is what no machine's slowness reaches.
    static func run(_ fixture: RunFixture, _ recipe: String, step: Int) async throws -> ProcessRunner.Result {
        try await fixture.run([recipe, "--once", "--verbose"], at: t0.addingTimeInterval(Double(step) * 1_860))
    }

    /// Prepending an item re-posted an old one, reordering re-posted it a third time, copying the
    /// recipe under a new name restarted the queue at item 0, and the new item was never posted
    /// (the server saw A, B, B, B, D, C). Now: A, B, then the new D, then C; the copy finds
    /// nothing left.
    @Test
    func editingReorderingAndCopyingNeverRepeat() async throws {
        let fixture = try await Self.fixture("queue_editor", items: ["A", "B", "C"])
        defer { Task { await fixture.stop() } }
        let recipe = try fixture.postingRecipe("queue_editor")
        #expect(try await Self.run(fixture, recipe, step: 0).status == 0)
        #expect(try await Self.run(fixture, recipe, step: 1).status == 0)
        try Self.write(["D", "A", "B", "C"], fixture)
        #expect(try await Self.run(fixture, recipe, step: 2).status == 0)
        try Self.write(["C", "B", "A", "D"], fixture)
        #expect(try await Self.run(fixture, recipe, step: 3).status == 0)
        try FileManager.default.removeItem(atPath: recipe)
        let copy = try fixture.postingRecipe("queue_editor", name: "renamed.yaml")
        let last = try await Self.run(fixture, copy, step: 4)
        #expect(last.status == 7, "the queue has nothing left: \(last.stderr)")
        #expect(last.stderr.contains("skipped"), "\(last.stderr)")
        #expect(try await fixture.titles(of: "queue_editor") == ["A", "B", "D", "C"])
    }

    /// State written by a version that kept a next index per recipe and queue (no ledger yet):
    /// the items before that index count as posted, once; the next run posts the following item.
    @Test
    func indexFromOlderStateIsCarriedOver() async throws {
        let fixture = try await Self.fixture("queue_upgrader", items: ["A", "B", "C"])
        defer { Task { await fixture.stop() } }
        let recipe = try fixture.postingRecipe("queue_upgrader")
        #expect(try await Self.run(fixture, recipe, step: 0).status == 0)
        // What an older version leaves: the index (next_index 1), no ledger.
        #expect(try await fixture.sqlite("SELECT next_index FROM queue_positions;") == "1")
        _ = try await fixture.sqlite("DELETE FROM limiter_state WHERE key = 'queue-items';")
        let second = try await Self.run(fixture, recipe, step: 1)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try await fixture.titles(of: "queue_upgrader") == ["A", "B"])
    }
}
