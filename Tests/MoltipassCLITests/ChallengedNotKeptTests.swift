import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// Issue 33, observation 5, through the binary: a server that keeps nothing unverified
/// (`keep_unverified: false`: a challenged post is not stored, its answer names no id, a right
/// answer clears the text for the client to send again). Before: every challenged item was
/// parked "unverified, never re-sent", the queue ran dry and `status` said the posts existed.
/// Now the server is the record: content not there after its challenge is sent again, once.
/// And on a server that keeps unverified content hidden (the default), a failed challenge's
/// content is never sent again (a second copy is a duplicate there).
@Suite("moltipass run: challenged content on a server that keeps nothing unverified")
struct ChallengedNotKeptTests {
    static func fixture(_ dialect: SandboxDialect, _ name: String, keep: Bool, solver: String = "builtin")
        async throws -> (RunFixture, String)
    {
        let fixture = try await RunFixture.start(dialect: dialect)
        try await fixture.admin(
            .post, "config",
            .object([
                "keep_unverified": .bool(keep), "challenge_rate": .number(1), "challenge_obfuscation": .number(0),
                "new_agent_period_seconds": .number(0),
            ]))
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent(name)
        try fixture.queue(count: 3)
        let recipe = try fixture.file(
            "challenged.yaml",
            """
            agent: \(name)
            time_zone: UTC
            base_url: \(fixture.base)
            challenge:
              solver: \(solver)
              on_fail: { pause: 1h }
            jobs:
              - id: posts
                schedule: { every: 30m, missed: { run_once_within: 1h } }
                expire_after: 6h
                steps:
                  - post: { submolt: general, queue: queue.yaml }
            """)
        return (fixture, recipe)
    }

    /// A right answer, and the post is not there: it is sent again (cleared, published without a
    /// new challenge), and the queue goes on in order. No item is lost or posted twice.
    @Test(.pinsItsDialect, arguments: [SandboxDialect.moltbookCom, .minimalMock])
    func aVerifiedPostTheServerDidNotKeepIsSentAgain(dialect: SandboxDialect) async throws {
        let name = "held_" + (dialect == .moltbookCom ? "com" : "mock")
        let (fixture, recipe) = try await Self.fixture(dialect, name, keep: false)
        defer { Task { await fixture.stop() } }
        let first = try await fixture.run([recipe, "--once", "--json"], at: RunFixture.t0, detailed: false)
        let items = try JSONValue.parse(Data(first.stdout.utf8))["items"]?.array ?? []
        #expect(
            items.contains { ($0["reason"]?.string ?? "").hasPrefix("not on the server after its challenge") },
            "\(items)")
        #expect(try await fixture.counter("challenged_not_kept") == 1)
        #expect(try await fixture.counter("challenges_verified") == 1)
        try await fixture.admin(.post, "config", .object(["challenge_rate": .number(0)]))
        for step in 1...3 {
            _ = try await fixture.run(
                [recipe, "--once"], at: RunFixture.t0.addingTimeInterval(Double(step) * 1_860), detailed: false)
        }
        #expect(try await fixture.titles(of: name) == ["Item 0", "Item 1", "Item 2"])
        #expect(try await fixture.counter("duplicate_contents") == 0)
        let status = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--now",
            RunFixture.iso(RunFixture.t0.addingTimeInterval(3 * 1_860 + 10)),
        ])
        #expect(!status.stdout.contains("parked"), "\(status.stdout)")
    }

    /// A declined challenge on that server: once a verified one's content was found absent (the
    /// server keeps nothing unverified), the declined post is looked for, found absent, and sent
    /// again after the pause; never while paused.
    @Test(.pinsItsDialect) func aFailedPostIsSentAgainOnlyOnceTheServerShowedItKeepsNothing() async throws {
        let (fixture, recipe) = try await Self.fixture(.moltbookCom, "held_fail", keep: false, solver: "none")
        defer { Task { await fixture.stop() } }
        let declined = try await fixture.run([recipe, "--once"], at: RunFixture.t0)
        #expect(declined.status == 6, "paused after the decline: \(declined.stderr)")
        // Nothing is learned yet: the post is parked as it would be on moltbook.com.
        #expect(try await fixture.journalCount("key LIKE '%~2'") == 0)
        // The solver works now: the next challenged post is verified, found absent, sent again,
        // and what is learned sends the declined one again too (after the pause).
        try fixture.file(
            "challenged.yaml",
            try String(contentsOfFile: recipe, encoding: .utf8)
                .replacingOccurrences(of: "solver: none", with: "solver: builtin"))
        let resumed = try await fixture.home.run([
            "resume", "held_fail", "--state", fixture.statePath, "--now",
            RunFixture.iso(RunFixture.t0.addingTimeInterval(3_700)),
        ])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let learning = try await fixture.run(
            [recipe, "--once", "--json", "--log-level", "info"], at: RunFixture.t0.addingTimeInterval(3_720),
            detailed: false)
        #expect(
            try await fixture.journalCount("key LIKE '%~2'") == 2,
            "both sent again: \(learning.stdout) \(learning.stderr)")
        try await fixture.admin(.post, "config", .object(["challenge_rate": .number(0)]))
        for step in 1...4 {
            _ = try await fixture.run(
                [recipe, "--once"], at: RunFixture.t0.addingTimeInterval(3_720 + Double(step) * 1_860), detailed: false)
        }
        let titles = try await fixture.titles(of: "held_fail")
        #expect(Set(titles) == ["Item 0", "Item 1", "Item 2"], "\(titles)")
        #expect(titles.count == 3, "none twice: \(titles)")
        let status = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--now",
            RunFixture.iso(RunFixture.t0.addingTimeInterval(3_720 + 4 * 1_860 + 10)),
        ])
        #expect(!status.stdout.contains("parked"), "sent again, not parked: \(status.stdout)")
        #expect(try await fixture.counter("duplicate_contents") == 0)
    }

    /// The default server keeps challenged content (pending, hidden): a declined post is never
    /// sent again, whatever comes later.
    @Test(.pinsItsDialect) func aServerThatKeepsUnverifiedContentNeverGetsItTwice() async throws {
        let (fixture, recipe) = try await Self.fixture(.minimalMock, "kept_fail", keep: true, solver: "none")
        defer { Task { await fixture.stop() } }
        let declined = try await fixture.run([recipe, "--once"], at: RunFixture.t0)
        #expect(declined.status == 6, "\(declined.stderr)")
        try fixture.file(
            "challenged.yaml",
            try String(contentsOfFile: recipe, encoding: .utf8)
                .replacingOccurrences(of: "solver: none", with: "solver: builtin"))
        _ = try await fixture.home.run([
            "resume", "kept_fail", "--state", fixture.statePath, "--now",
            RunFixture.iso(RunFixture.t0.addingTimeInterval(3_700)),
        ])
        for step in 0...3 {
            _ = try await fixture.run(
                [recipe, "--once"], at: RunFixture.t0.addingTimeInterval(3_720 + Double(step) * 1_860), detailed: false)
        }
        #expect(try await fixture.journalCount("key LIKE '%~%'") == 0)
        // Item 0 once (kept pending and hidden by the server), then Items 1 and 2, verified.
        #expect(try await fixture.counter("posts_created") == 3)
        #expect(try await fixture.counter("duplicate_contents") == 0)
    }
}
