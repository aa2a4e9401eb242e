import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 33, observation 11: a server whose `/agents/me` has no `is_claimed` and says the
/// claim in words (`status: "pending_claim"`) lets the unclaimed agent act. `check` named it, but
/// `run` said nothing and `status --health` said healthy. Through the binary, in every dialect
/// (the sandbox's `claim_shape: status` says it the same way in both).
@Suite("an unclaimed agent said in words")
struct ClaimInWordsTests {
    @Test func runAndHealthNameAnAgentWhoseProfileSaysPendingClaim() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.admin(
            .post, "config",
            .object([
                "require_claim": .bool(false), "claim_shape": .string("status"),
                "new_agent_period_seconds": .number(0),
            ]))
        // Registered two days before: the engine's established limits (a post each half hour).
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(-2 * 86_400))
        let registered = try await fixture.home.run([
            "register", "words_agent", "--description", "claim test", "--base-url", fixture.base,
        ])
        #expect(registered.status == 0, "\(registered.stderr)")
        try fixture.queue(count: 2)
        let recipe = try fixture.postingRecipe("words_agent")

        let run = try await fixture.run([recipe, "--once"], at: RunFixture.t0)
        // The server let it post: the run did its work, and says the agent is not claimed.
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try await fixture.titles(of: "words_agent") == ["Item 0"])
        #expect(run.stderr.contains("not claimed"), "\(run.stderr)")
        #expect(run.stderr.contains("moltipass claim words_agent"), "\(run.stderr)")

        let health = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--health", "--json", "--now",
            RunFixture.iso(RunFixture.t0),
        ])
        #expect(health.status == 1, "unhealthy: \(health.stdout) \(health.stderr)")
        let answer = try JSONValue.parse(Data(health.stdout.utf8))
        let problems = answer["problems"]?.array ?? []
        #expect(
            problems.contains { $0["kind"]?.string == "unclaimed" && $0["agent"]?.string == "words_agent" },
            "\(health.stdout)")

        // Claimed: the next run reads the profile again and health is clear of it.
        try await claimOnSandbox(fixture.sandbox, "words_agent")
        let later = RunFixture.t0.addingTimeInterval(1_860)
        let second = try await fixture.run([recipe, "--once"], at: later)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(!second.stderr.contains("not claimed"), "\(second.stderr)")
        let healthy = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--health", "--json", "--now", RunFixture.iso(later),
        ])
        let after = try JSONValue.parse(Data(healthy.stdout.utf8))["problems"]?.array ?? []
        #expect(!after.contains { $0["kind"]?.string == "unclaimed" }, "\(healthy.stdout)")
    }
}
