import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 33, observation 3, through the binary: a step whose selection read met a 429 in a job
/// whose other step was journaled. Before: the job's cursor moved on with the post, the next run
/// made no request, `pending` said nothing was waiting, and the comment was never written. Now
/// the step is kept like a write: `pending` and `status` show it, the next run after the
/// server's wait reads and comments, once; one that waits past its job's next occurrence
/// expires with a line that says so.
@Suite("moltipass run: deferred reads are kept")
struct DeferredReadTests {
    static func fixture(_ name: String) async throws -> (RunFixture, String, String) {
        let (fixture, _) = try await RunFixture.establishedPoster(name)
        try await fixture.admin(
            .post, "config",
            .object(["new_agent_period_seconds": .number(0), "limits": .object(["post_cooldown_seconds": .null])]))
        try await fixture.keychainAgent("other_\(name)")
        let at = RunFixture.t0.addingTimeInterval(3_600)
        try await fixture.setClock(at.addingTimeInterval(-120))
        let target = try await fixture.postByHand("other_\(name)", title: "Worth a word", content: "Say something.")
        let recipe = try fixture.file(
            "tend.yaml",
            """
            agent: \(name)
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: tend
                schedule: { every: 1h, missed: { run_once_within: 1h } }
                steps:
                  - post: { submolt: general, title: "Tend {{ date: HH:mm }}", content: "Tending at {{ date: HH:mm }}." }
                  - comment: { on: { source: submolt, submolt: general, sort: new, not_mine: true, max_per_run: 1 }, content: "Nice one." }
            """)
        // The selection's read answers 429 once, with a wait of two minutes.
        try await fixture.admin(
            .post, "faults",
            .array([
                .object([
                    "mode": .string("rate_limited"), "method": .string("GET"),
                    "path_prefix": .string("/api/v1/submolts/general/feed"), "count": .number(1),
                    "delay_seconds": .number(120),
                ])
            ]))
        return (fixture, recipe, target)
    }

    static func commentTargets(_ fixture: RunFixture, _ name: String) async throws -> [String] {
        (try await fixture.admin(.get, "comments?author=\(name)")["comments"]?.array ?? []).compactMap {
            $0["post_id"]?.string
        }
    }

    @Test(.pinsItsDialect) func aSelectionDeferredBesideAJournaledPostIsReadLater() async throws {
        let (fixture, recipe, target) = try await Self.fixture("tender")
        defer { Task { await fixture.stop() } }
        let at = RunFixture.t0.addingTimeInterval(3_600)
        let first = try await fixture.run([recipe, "--once", "--json"], at: at, detailed: false)
        let items = try JSONValue.parse(Data(first.stdout.utf8))["items"]?.array ?? []
        #expect(
            items.contains { $0["action"]?.string == "select targets" && $0["outcome"]?.string == "deferred" },
            "\(items)")
        #expect(try await Self.commentTargets(fixture, "tender").isEmpty)

        let pending = try await fixture.home.run(["pending", recipe, "--state", fixture.statePath, "--json"])
        let waiting = try JSONValue.parse(Data(pending.stdout.utf8)).array ?? []
        let read = waiting.first { $0["state"]?.string == "read_deferred" }
        #expect(read?["action"]?.string == "select targets for step 2", "\(waiting)")
        #expect(read?["next_attempt"]?.string != nil)
        let status = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--now", RunFixture.iso(at.addingTimeInterval(30)),
        ])
        #expect(status.stdout.contains("select targets for step 2 [read_deferred]"), "\(status.stdout)")

        // Before the server's wait is over: still waiting, no read.
        let early = try await fixture.run([recipe, "--once"], at: at.addingTimeInterval(60), detailed: false)
        #expect(early.status == 0, "\(early.stderr)")
        #expect(try await Self.commentTargets(fixture, "tender").isEmpty)
        // After it: read, and the comment written once.
        _ = try await fixture.run([recipe, "--once"], at: at.addingTimeInterval(300), detailed: false)
        #expect(try await Self.commentTargets(fixture, "tender") == [target])
        _ = try await fixture.run([recipe, "--once"], at: at.addingTimeInterval(600), detailed: false)
        #expect(try await Self.commentTargets(fixture, "tender") == [target])
        let after = try await fixture.home.run(["pending", recipe, "--state", fixture.statePath, "--json"])
        #expect(
            !(try JSONValue.parse(Data(after.stdout.utf8)).array ?? []).contains {
                $0["state"]?.string == "read_deferred"
            }, "\(after.stdout)")
        #expect(try await fixture.titles(of: "tender").filter { $0.hasPrefix("Tend") } == ["Tend 11:00"])
    }

    /// A read still deferred at its job's next occurrence expires: a line says so, and
    /// `pending` no longer lists it (the next occurrence reads for itself).
    @Test(.pinsItsDialect) func aDeferredReadExpiresWithItsOccurrence() async throws {
        let (fixture, recipe, _) = try await Self.fixture("waiter")
        defer { Task { await fixture.stop() } }
        let at = RunFixture.t0.addingTimeInterval(3_600)
        _ = try await fixture.run([recipe, "--once"], at: at, detailed: false)
        let late = try await fixture.run(
            [recipe, "--once", "--json"], at: at.addingTimeInterval(3_700), detailed: false)
        let items = try JSONValue.parse(Data(late.stdout.utf8))["items"]?.array ?? []
        #expect(
            items.contains {
                ($0["action"]?.string ?? "").hasPrefix("select targets (occurrence 2026-12-01T11:00:00Z)")
                    && ($0["reason"]?.string ?? "").hasPrefix("expired 2026-12-01T12:00:00Z unread")
            }, "\(items)")
        let after = try await fixture.home.run(["pending", recipe, "--state", fixture.statePath, "--json"])
        #expect(!after.stdout.contains("read_deferred"), "\(after.stdout)")
    }
}
