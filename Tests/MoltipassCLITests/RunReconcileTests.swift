import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// A write whose response was lost, through the real binary against a `moltbook-sandbox`
/// process: the next cron run reads back instead of sending again.
@Suite("moltipass run: lost responses")
struct RunReconcileTests {
    /// The connection drops after the server made the post: the run exits 75 (uncertain); the
    /// next run finds the post by reading back, marks it done, exits 0, and posts nothing new.
    @Test func droppedResponseIsReadBack() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("drop_cron")
        try fixture.queue(count: 5)
        let recipe = try fixture.postingRecipe("drop_cron")
        try await fixture.admin(
            .post, "faults",
            .object([
                "mode": .string("drop"), "path_prefix": .string("/api/v1/posts"), "method": .string("POST"),
                "count": .number(1),
            ]))
        let t0 = RunFixture.t0

        let lost = try await fixture.run([recipe, "--once"], at: t0)
        // Uncertain has its own code: not done, not failed (9).
        #expect(lost.status == 9, "\(lost.stderr)")
        #expect(lost.stderr.contains("1 uncertain"), "\(lost.stderr)")
        #expect(try await fixture.counter("posts_created") == 1)
        #expect(try await fixture.journalCount("state = 'uncertain'") == 1)

        let settled = try await fixture.run([recipe, "--once", "--json"], at: t0.addingTimeInterval(60))
        #expect(settled.status == 0, "\(settled.stderr)")
        let report = try JSONValue.parse(Data(settled.stdout.utf8))
        #expect(report["items"]?.array?.first?["reason"]?.string == "read back: it had been applied")
        #expect(try await fixture.counter("posts_created") == 1)
        #expect(try await fixture.counter("duplicate_contents") == 0)
        #expect(try await fixture.journalCount("state = 'done' AND remote_id IS NOT NULL") == 1)
        #expect(try await fixture.titles(of: "drop_cron") == ["Item 0"])
    }
}
