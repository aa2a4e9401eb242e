import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// `moltipass status` shows each agent's inbox (issue 22): the summary the engine stores under
/// `limiter_state` key `inbox`, here written into a real state file with the system `sqlite3`
/// in its stored JSON form.
@Suite("moltipass status: the inbox")
struct StatusInboxTests {
    /// Pending DM requests (names, conversations, previews), unread messages and notifications,
    /// posts with activity and the time read, in text and in `--json`; a DM block with its reason
    /// and end; an agent with no summary shows none. Another agent's control characters do not
    /// reach the terminal. Status leaves the file as it was.
    @Test func inboxInTextAndJSON() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let state = home.directory.file("state.sqlite").path
        var recipes: [String] = []
        for agent in ["inbox_bot", "young_bot", "quiet_bot"] {
            let recipe = home.directory.file("\(agent).yaml")
            try """
            agent: \(agent)
            time_zone: UTC
            base_url: http://127.0.0.1:9
            jobs:
              - id: monthly
                schedule: { cron: "0 9 28 2 *" }
                steps:
                  - post: { submolt: general, title: "Monthly", content: "Once a month." }
            """.write(to: recipe, atomically: true, encoding: .utf8)
            recipes.append(recipe.path)
        }
        // A real state file, made by the binary (pause opens and migrates it; --new: the agent has not run).
        let made = try await home.run(["pause", "state_maker", "--new", "--for", "1m", "--state", state])
        #expect(made.status == 0, "pause: \(made.stderr)")
        let available = #"""
            {"as_of":"2026-12-01T09:58:00.000000+00:00","unread_notifications":1,"posts_with_activity":2,
             "unread_messages":3,"dm":{"state":"available"},
             "pending_requests":[
               {"from":"alice","conversation_id":"conv-1","preview":"Hello \u001b[31mthere\u001b[0m, can we talk?",
                "created_at":"2026-12-01T08:00:00Z"},
               {"from":"bob","conversation_id":"conv-2"}]}
            """#
        let blocked = #"""
            {"as_of":"2026-12-01T09:59:00Z","unread_notifications":0,"pending_requests":[],
             "dm":{"state":"blocked","reason":"agent younger than 24 hours","until":"2026-12-02T07:00:00Z"}}
            """#
        for (agent, json) in [("inbox_bot", available), ("young_bot", blocked)] {
            let sql = json.replacingOccurrences(of: "'", with: "''")
            let inserted = try await ProcessRunner.runSystem(
                "/usr/bin/sqlite3",
                [state, "INSERT INTO limiter_state VALUES ('\(agent)', 'inbox', CAST('\(sql)' AS BLOB), 0);"])
            #expect(inserted.status == 0, "sqlite3: \(inserted.stderr)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: state))
        let now = ["--state", state, "--now", "2026-12-01T10:00:00Z"]

        let text = try await home.run(["status"] + recipes + now)
        #expect(text.status == 0, "status: \(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.contains(
                "  inbox: 2 pending DM requests (from alice, bob), 3 unread messages, 1 unread notification, "
                    + "new activity on 2 posts, as of 2026-12-01T09:58:00Z"),
            "\(text.stdout)")
        #expect(
            lines.contains(
                #"  DM request from alice (conversation conv-1, 2026-12-01T08:00:00Z): "Hello  [31mthere [0m, can we talk?""#
            ),
            "\(text.stdout)")
        #expect(lines.contains("  DM request from bob (conversation conv-2)"), "\(text.stdout)")
        #expect(
            lines.contains(
                "  inbox: DMs blocked (agent younger than 24 hours) until 2026-12-02T07:00:00Z, 0 unread notifications, "
                    + "as of 2026-12-01T09:59:00Z"),
            "\(text.stdout)")
        #expect(!text.stdout.contains("\u{1B}"))
        // Each inbox under its own agent; none for the agent without a summary.
        let quiet = try #require(lines.firstIndex(of: "agent quiet_bot"))
        let young = try #require(lines.firstIndex(of: "agent young_bot"))
        #expect(lines[quiet..<young].allSatisfy { !$0.contains("inbox") }, "\(text.stdout)")
        #expect(lines[young...].filter { $0.contains("inbox:") }.count == 1)

        let json = try await home.run(["status"] + recipes + now + ["--json"])
        #expect(json.status == 0, "status --json: \(json.stderr)")
        let agents = try JSONValue.parse(Data(json.stdout.utf8))["agents"]?.array ?? []
        let byName = Dictionary(uniqueKeysWithValues: agents.map { ($0["agent"]?.string ?? "", $0) })
        let inbox = try #require(byName["inbox_bot"]?["inbox"])
        #expect(inbox["as_of"]?.string == "2026-12-01T09:58:00Z")
        #expect(inbox["unread_notifications"]?.int == 1)
        #expect(inbox["posts_with_activity"]?.int == 2)
        #expect(inbox["dm"]?["available"]?.bool == true)
        #expect(inbox["dm"]?["state"]?.string == "available")
        #expect(inbox["dm"]?["reason"] == nil)
        #expect(inbox["dm"]?["unread_messages"]?.int == 3)
        let requests = inbox["dm"]?["pending_requests"]?.array ?? []
        #expect(requests.map { $0["from"]?.string } == ["alice", "bob"])
        #expect(requests.map { $0["conversation_id"]?.string } == ["conv-1", "conv-2"])
        #expect(requests.first?["preview"]?.string == "Hello \u{1B}[31mthere\u{1B}[0m, can we talk?")
        #expect(requests.first?["created_at"]?.string == "2026-12-01T08:00:00Z")
        #expect(requests.last?["preview"] == nil && requests.last?["created_at"] == nil)

        let youngInbox = try #require(byName["young_bot"]?["inbox"])
        #expect(youngInbox["dm"]?["available"]?.bool == false)
        #expect(youngInbox["dm"]?["state"]?.string == "blocked")
        #expect(youngInbox["dm"]?["reason"]?.string == "agent younger than 24 hours")
        #expect(youngInbox["dm"]?["until"]?.string == "2026-12-02T07:00:00Z")
        #expect(youngInbox["dm"]?["pending_requests"]?.array?.isEmpty == true)
        #expect(youngInbox["dm"]?["unread_messages"] == nil)
        #expect(youngInbox["posts_with_activity"] == nil)
        #expect(byName["quiet_bot"] != nil && byName["quiet_bot"]?["inbox"] == nil)

        #expect(try Data(contentsOf: URL(fileURLWithPath: state)) == before)
    }
}
