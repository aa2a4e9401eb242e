import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 34, observation 8, through the binary: `{{ post.title }}` rendered empty in replies to posts found only
/// through notifications (`Thanks …, noted on ""`). A reply to the agent's comment on another agent's post is not
/// in `/home`'s activity on the agent's own posts, and a notification names the post by id: the post is read.
/// On moltbook.com's dialect, whose notifications the reply source reads.
@Suite("Replies on posts found through notifications")
struct NotifiedPostTitleTests {
    @Test(.pinsItsDialect) func aReplyNamesThePostItAnswersOn() async throws {
        let fixture = try await RunFixture.start(dialect: .moltbookCom)
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0
        try await fixture.setClock(t0.addingTimeInterval(-3 * 86_400))
        let hostKey = try await registerOnSandbox(fixture.sandbox, "polite_guest")
        try await claimOnSandbox(fixture.sandbox, "polite_guest")
        let added = try await fixture.home.run(
            ["keys", "add", "polite_guest", "--base-url", fixture.base], stdin: hostKey, recorded: false)
        #expect(added.status == 0, "keys add: \(added.stderr)")
        try await fixture.admin(.post, "agents/polite_guest/age", .object(["age_seconds": .number(3 * 86_400)]))
        try await fixture.setClock(t0.addingTimeInterval(-3_600))
        let ownerKey = try await registerOnSandbox(fixture.sandbox, "tide_owner")
        try await claimOnSandbox(fixture.sandbox, "tide_owner")
        let post = try await fixture.rawPost(
            key: APIKey(ownerKey), submolt: "general", title: "Spring tides at Wick", content: "Who keeps a log?")
        let guest = try MoltbookClient(
            baseURL: fixture.sandbox.baseURL, apiKey: APIKey(hostKey), transport: fixture.transport,
            allowLoopback: true)
        let owner = try MoltbookClient(
            baseURL: fixture.sandbox.baseURL, apiKey: APIKey(ownerKey), transport: fixture.transport,
            allowLoopback: true)
        let mine = try #require(try await guest.createComment(postID: post, content: "I do, hourly.").value.id)
        _ = try await owner.createComment(postID: post, content: "Would you share it?", parentID: mine)
        let recipe = try fixture.file(
            "thanks.yaml",
            """
            agent: polite_guest
            time_zone: UTC
            jobs:
              - id: thanks
                schedule: { heartbeat: 30m }
                steps:
                  - reply:
                      content: "Thanks {{ trigger.author }}, noted on \\"{{ post.title }}\\""
            """)
        var answers: [JSONValue] = []
        for step in 0..<4 where answers.isEmpty {
            _ = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(Double(step) * 1_805))
            let comments = try await fixture.admin(.get, "comments?post=\(post)")["comments"]?.array ?? []
            answers = comments.filter {
                $0["author"]?.string == "polite_guest" && $0["content"]?.string?.hasPrefix("Thanks") == true
            }
        }
        let content = try #require(answers.first?["content"]?.string, "polite_guest never answered")
        #expect(content == "Thanks tide_owner, noted on \"Spring tides at Wick\"")
        #expect(answers.count == 1)
    }
}
