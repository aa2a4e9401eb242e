import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// `plan` shows conversations (issue 22): with a recipe that answers, the simulated server plays
/// other agents who comment, reply, mention and write DMs, and the plan lists each item answered
/// or passed over and why, each DM request approved and each post marked read.
@Suite("moltipass plan: conversations")
struct PlanConversationTests {
    static let example = Fixtures.packageRoot.appendingPathComponent("recipes/answering/heartbeat.yaml").path

    @Test func aDayOfTheHeartbeatExample() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let arguments = [
            "plan", Self.example, "--from", "2026-12-01T00:00:00Z", "--for", "1d", "--state",
            home.path + "/none.sqlite",
        ]
        let text = try await home.run(arguments)
        #expect(text.status == 0, "\(text.stderr)")
        let header = try #require(
            text.stdout.split(separator: "\n").first { $0.hasPrefix("conversations: ") }, "\(text.stdout)")
        #expect(header.contains("answered"), "\(header)")

        let json = try await home.run(arguments + ["--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let result = try JSONValue.parse(Data(json.stdout.utf8))
        #expect(result["scenario"]?["simulated_agents"]?.int == 3)
        let conversations = result["conversations"]?.array ?? []
        let kinds = conversations.compactMap { $0["kind"]?.string }
        #expect(kinds.contains("reply"), "\(kinds)")
        #expect(kinds.contains("mark_read"), "\(kinds)")
        // Every answer names what it answers; every passed-over item says why.
        for line in conversations where ["reply", "dm"].contains(line["kind"]?.string) {
            #expect(line["trigger"]?.string?.hasPrefix("@") == true, "\(line)")
        }
        for line in conversations where line["kind"]?.string == "skipped" {
            #expect(!(line["reason"]?.string ?? "").isEmpty, "\(line)")
        }
        // The recipe names no one to approve but reef_friend, whom the simulation does not play.
        #expect(!kinds.contains("dm_approve"))
        #expect(conversations.filter { $0["kind"]?.string == "reply" && $0["outcome"]?.string == "done" }.count >= 5)
    }

    /// A plan whose recipes answer nothing has no `conversations` (its JSON is as before) and
    /// no simulated agents.
    @Test func noConversationsWithoutAnswers() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = home.directory.file("post.yaml")
        try """
        agent: quiet_bot
        jobs:
          - id: note
            schedule: { every: 12h }
            steps:
              - post: { submolt: general, title: "Note {{ date }} {{ date: HH }}", content: "Once." }
        """.write(to: recipe, atomically: true, encoding: .utf8)
        let json = try await home.run([
            "plan", recipe.path, "--from", "2026-12-01T00:00:00Z", "--for", "1d", "--state", home.path + "/none.sqlite",
            "--json",
        ])
        #expect(json.status == 0, "\(json.stderr)")
        #expect(try JSONValue.parse(Data(json.stdout.utf8))["conversations"] == nil)
        #expect(try JSONValue.parse(Data(json.stdout.utf8))["scenario"]?["simulated_agents"] == nil)
        #expect(!json.stdout.contains("sim-"))
    }
}
