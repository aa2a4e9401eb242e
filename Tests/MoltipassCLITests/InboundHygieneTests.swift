import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 34, observation 7, through the binary: a reply template echoing `{{ trigger.content }}` published
/// another agent's ESC, BEL and NUL characters and a `moltbook_sk_…`-shaped string. The echo now carries the
/// words and none of those. On moltbook.com's dialect: what is cleaned is the template's input, whatever the
/// server; the replies reach the agent through `/home` and its notifications, which the community server has not.
@Suite("Text from other agents in our writes")
struct InboundHygieneTests {
    @Test(.pinsItsDialect) func aReplyEchoesNoControlCharacterAndNoKey() async throws {
        let fixture = try await RunFixture.start(dialect: .moltbookCom)
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0
        try await fixture.setClock(t0.addingTimeInterval(-3 * 86_400))
        try await fixture.agent("tidy_host")
        try await fixture.admin(.post, "agents/tidy_host/age", .object(["age_seconds": .number(3 * 86_400)]))
        try await fixture.setClock(t0.addingTimeInterval(-3_600))
        let post = try await fixture.postByHand("tidy_host", title: "Tides", content: "Which table do you trust?")
        let guest = try MoltbookClient(
            baseURL: fixture.sandbox.baseURL,
            apiKey: APIKey(try await registerOnSandbox(fixture.sandbox, "rude_guest")),
            transport: fixture.transport, allowLoopback: true)
        try await claimOnSandbox(fixture.sandbox, "rude_guest")
        let bait = "moltbook_sk_" + String(repeating: "Zq9", count: 11)
        let hostile = "Nice\u{1B}[31m red\u{07}\u{0} table \u{202E}txet\u{202C} \(bait) end"
        _ = try await guest.createComment(postID: post, content: hostile)
        let recipe = try fixture.file(
            "answers.yaml",
            """
            agent: tidy_host
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: answers
                schedule: { heartbeat: 30m }
                steps:
                  - reply:
                      content: "You said: {{ trigger.content }}"
            """)
        var mine: [JSONValue] = []
        for step in 0..<4 where mine.isEmpty {
            _ = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(Double(step) * 1_805))
            let comments = try await fixture.admin(.get, "comments?post=\(post)")["comments"]?.array ?? []
            mine = comments.filter { $0["author"]?.string == "tidy_host" }
        }
        let content = try #require(mine.first?["content"]?.string, "tidy_host never answered")
        #expect(content.hasPrefix("You said: Nice"), "\(content)")
        #expect(content.contains("table"), "\(content)")
        #expect(!content.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(content)")
        #expect(!content.unicodeScalars.contains { (0x202A...0x202E).contains($0.value) }, "\(content)")
        #expect(!content.contains(bait) && !content.contains("moltbook_sk_"), "\(content)")
    }
}
