import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 20, "adding an action": `vote: { ensure: downvoted, comment: ID }` through the binary
/// against a `moltbook-sandbox` process.
@Suite("Comment downvote")
struct CommentDownvoteTests {
    /// `plan --live` shows the downvote it would send; `run --once` sends it and the comment's
    /// score goes down by one; later runs leave it alone, from the journal and, once the journal
    /// is pruned, from the `comment_vote` fact `down` alone.
    @Test func runDownvotesACommentOnce() async throws {
        let fixture = try await RunFixture.start(sandboxArguments: ["--config", try RunCrashTests.config()])
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0
        try await fixture.setClock(t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent("comment_critic")
        let (post, comment, author) = try await Self.hostComment(fixture)
        func score() async throws -> Int? {
            try await author.comments(postID: post).value.items.first { $0.id == comment }?.score
        }
        #expect(try await score() == 0)
        let recipe = try fixture.file(
            "downvote.yaml",
            """
            agent: comment_critic
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: critique
                schedule: { every: 1h }
                steps:
                  - vote: { ensure: downvoted, comment: \(comment) }
            """)

        try await fixture.setClock(t0)
        let live = try await fixture.home.run([
            "plan", "--live", recipe, "--state", fixture.statePath, "--now", RunFixture.iso(t0), "--json",
        ])
        #expect(live.status == 0, "\(live.stderr)")
        let rows = try JSONValue.parse(Data(live.stdout.utf8))["rows"]?.array ?? []
        let row = try #require(rows.first { $0["action"]?.string == "downvote_comment" }, "\(live.stdout)")
        #expect(row["outcome"]?.string == "would_send")
        #expect(row["summary"]?.string == "downvote comment \(comment)")
        #expect(row["target"]?.string == comment)
        #expect(row["request"]?.string == "POST /api/v1/comments/\(comment)/downvote")
        #expect(try await fixture.counter("votes_cast") == 0)

        let sent = try await fixture.run([recipe, "--once"], at: t0)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(try await score() == -1)
        #expect(try await fixture.counter("votes_cast") == 1)
        #expect(
            try await fixture.sqlite("SELECT value FROM dedup WHERE kind = 'comment_vote' AND target = '\(comment)';")
                == "down")
        #expect(try await fixture.journalCount("action = 'downvote_comment' AND state = 'done'") == 1)

        let again = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(3_600))
        #expect(again.status == 3, "nothing sent: \(again.stderr)")
        // What retention does after 90 days: the journal rows go, the fact stays.
        _ = try await fixture.sqlite("DELETE FROM journal;")
        let pruned = try await fixture.run([recipe, "--once"], at: t0.addingTimeInterval(2 * 3_600))
        #expect(pruned.status == 3, "nothing sent: \(pruned.stderr)")
        #expect(try await fixture.counter("votes_cast") == 1)
        #expect(try await fixture.counter("votes_removed") == 0)
        #expect(try await score() == -1)
    }

    /// `plan` (simulated) shows the step as a `downvote_comment` in the `vote` class.
    @Test func planShowsIt() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = home.directory.file("downvote.yaml")
        try """
        agent: comment_critic
        jobs:
          - id: critique
            schedule: { cron: "0 9 * * *" }
            steps:
              - vote: { ensure: downvoted, comment: c-77 }
        """.write(to: recipe, atomically: true, encoding: .utf8)
        let plan = try await home.run(["plan", recipe.path, "--for", "1d", "--from", "2026-03-02T00:00:00Z", "--json"])
        #expect(plan.status == 0, "\(plan.stderr)")
        let events = try JSONValue.parse(Data(plan.stdout.utf8))["events"]?.array ?? []
        let vote = try #require(events.first { $0["action"]?.string == "downvote_comment" }, "\(plan.stdout)")
        #expect(vote["limit_class"]?.string == "vote")
        #expect(vote["target"]?.string == "c-77")
        #expect(vote["summary"]?.string == "downvote comment c-77")
    }

    /// A post and a comment on it by a fresh, claimed agent `comment_host`, made through the API;
    /// returns their ids and the author's client.
    static func hostComment(_ fixture: RunFixture) async throws -> (String, String, MoltbookClient) {
        let anonymous = try MoltbookClient(
            baseURL: fixture.sandbox.baseURL, apiKey: nil, transport: fixture.transport, allowLoopback: true)
        let key = try await anonymous.register(name: "comment_host", description: "comments targets").value.apiKey
        try await claimOnSandbox(fixture.sandbox, "comment_host")
        let post = try await fixture.rawPost(key: key, submolt: "general", title: "Hot takes", content: "Reply below.")
        let author = anonymous.with(apiKey: key)
        let comment = try #require(try await author.createComment(postID: post, content: "Tabs are best.").value.item)
        return (post, comment.id, author)
    }
}
