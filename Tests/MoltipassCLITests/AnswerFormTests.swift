import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 33, observation 6, through the binary: a challenge's answer is written as the challenge
/// asks. A server that wants a whole number (and says so) gets `72`, not `72.00`; one that does
/// not say is declined (the agent pauses, nothing wrong is sent).
@Suite("moltipass run: answers in the form the challenge asks")
struct AnswerFormTests {
    static func challenged(_ name: String, form: String) async throws -> (RunFixture, ProcessRunner.Result) {
        let fixture = try await RunFixture.start(dialect: TestDialect.issuingChallenges)
        try await fixture.agent(name)
        try fixture.queue(count: 3)
        let recipe = try fixture.postingRecipe(name)
        try await fixture.admin(
            .post, "config",
            .object([
                "challenge_rate": .number(1), "challenge_answer_form": .string(form),
                "challenge_obfuscation": .number(0),
            ]))
        let run = try await fixture.run([recipe, "--once", "--json"], at: RunFixture.t0)
        return (fixture, run)
    }

    @Test func aWholeNumberIsAnsweredAsOne() async throws {
        let (fixture, run) = try await Self.challenged("whole_answer", form: "whole_number")
        defer { Task { await fixture.stop() } }
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try await fixture.counter("challenges_verified") == 1)
        #expect(try await fixture.counter("challenges_failed") == 0)
        let verify = try JSONValue.parse(Data(run.stdout.utf8))["items"]?.array?.first {
            $0["action"]?.string == "verify"
        }
        let reason = verify?["reason"]?.string ?? ""
        let answered = reason.components(separatedBy: "answered ").last?.components(separatedBy: ":").first ?? ""
        #expect(reason.hasSuffix(": verified"), "\(reason)")
        #expect(!answered.isEmpty && answered.allSatisfy(\.isNumber), "a whole number, no point: \(reason)")
    }

    @Test func anUnstatedFormIsDeclined() async throws {
        let (fixture, run) = try await Self.challenged("unsaid_answer", form: "unstated")
        defer { Task { await fixture.stop() } }
        #expect(run.status == 6, "paused: \(run.stderr)")
        #expect(run.stdout.contains("declined: the challenge does not say how its answer is written"), "\(run.stdout)")
        let counters = try await fixture.counters()
        #expect(counters["challenges_failed"]?.int ?? 0 == 0, "no answer was sent: \(counters)")
        #expect(counters["challenges_verified"]?.int == 0)
    }
}
