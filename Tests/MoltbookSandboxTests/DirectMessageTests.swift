import Foundation
import MoltbookAPI
import MoltbookSandbox
import Testing

@Suite struct DirectMessageTests {
    static let dmRoutes: [(HTTPMethod, String)] = [
        (.get, "/agents/dm/check"), (.get, "/agents/dm/requests"), (.post, "/agents/dm/requests/c1/approve"),
        (.post, "/agents/dm/requests/c1/reject"), (.get, "/agents/dm/conversations"),
        (.get, "/agents/dm/conversations/c1"), (.post, "/agents/dm/conversations/c1/send"),
        (.post, "/agents/dm/request"),
    ]

    /// Every DM route answers 403 with the documented error to an agent younger than 24 hours (by
    /// its `created_at` and the model's clock), and works once it is older; the admin age route
    /// moves `created_at`.
    @Test func youngAgentsAreRefused() throws {
        let driver = SandboxDriver(config: SandboxConfig(limits: .unlimited))
        let young = driver.agent("young")
        for (method, path) in Self.dmRoutes {
            let answer = driver.call(method, path, key: young, json: method == .post ? [:] : nil)
            #expect(answer.status == 403, "\(path)")
            #expect(answer["error"] == "Direct messages are not available for agents younger than 24 hours", "\(path)")
            #expect(answer["hint"]?.stringValue?.contains("in about 24 hours") == true)
        }
        #expect(driver.model.counters().dmAgeRefusals == Self.dmRoutes.count)
        #expect(driver.call(.get, "/home", key: young).status == 200)
        driver.advance(86_399)
        #expect(driver.call(.get, "/agents/dm/check", key: young).status == 403)
        driver.advance(1)
        #expect(driver.call(.get, "/agents/dm/check", key: young).status == 200)

        let other = driver.agent("other")
        #expect(driver.call(.get, "/agents/dm/check", key: other).status == 403)
        let aged = driver.call(.post, "/_sandbox/agents/other/age", json: ["age_seconds": 90_000])
        #expect(aged.status == 200)
        #expect(aged["agent"]?["created_at"] == .string(SandboxTime.iso(driver.now.addingTimeInterval(-90_000))))
        #expect(driver.call(.get, "/agents/dm/check", key: other).status == 200)
        driver.call(.post, "/_sandbox/agents/other/age", json: ["created_at": .string(SandboxTime.iso(driver.now))])
        #expect(driver.call(.get, "/agents/dm/check", key: other).status == 403)
        #expect(driver.call(.post, "/_sandbox/agents/other/age", json: [:]).status == 400)
        #expect(driver.call(.post, "/_sandbox/agents/ghost/age", json: ["age_seconds": 1]).status == 404)
    }

    /// A request opens a pending conversation the recipient sees in `check` and `requests`;
    /// nothing flows until it approves; then messages flow both ways, the conversation list
    /// counts unread messages, and opening the conversation marks the other side's read.
    @Test func requestApproveAndTalk() throws {
        let driver = SandboxDriver.inbox()
        let alice = driver.agent("alice")
        let bob = driver.agent("bob")
        let requested = driver.call(
            .post, "/agents/dm/request", key: alice, json: ["to": "bob", "message": "Hello bob, shall we talk?"])
        #expect(requested.status == 201)
        #expect(requested["status"] == "pending")
        let id = try #require(requested["conversation_id"]?.stringValue)
        let again = driver.call(
            .post, "/agents/dm/request", key: bob, json: ["to": "alice", "message": "Hi alice there!"])
        #expect(again.status == 400)
        #expect(again["conversation_id"] == .string(id))
        #expect(
            driver.call(.post, "/agents/dm/request", key: alice, json: ["to": "bob", "message": "short"]).status == 400)
        #expect(
            driver.call(.post, "/agents/dm/request", key: alice, json: ["to": "ghost", "message": "Hello ghost!"])
                .status == 404)
        #expect(
            driver.call(.post, "/agents/dm/request", key: alice, json: ["to": "alice", "message": "Hello me, me!"])
                .status == 400)

        let check = driver.call(.get, "/agents/dm/check", key: bob)
        #expect(check["has_activity"] == true)
        #expect(check["requests"]?["count"] == 1)
        let item = try #require(check["requests"]?["items"]?.arrayValue?.first)
        #expect(item["conversation_id"] == .string(id))
        #expect(item["from"]?["name"] == "alice")
        #expect(item["from"]?["owner"]?["x_handle"] == "owner_alice")
        #expect(item["message_preview"] == "Hello bob, shall we talk?")
        #expect(driver.call(.get, "/agents/dm/requests", key: bob)["requests"]?.arrayValue?.count == 1)
        #expect(driver.call(.get, "/agents/dm/requests", key: alice)["requests"] == [])
        #expect(driver.call(.get, "/home", key: bob)["your_direct_messages"]?["pending_request_count"] == "1")
        #expect(driver.notifications(of: "bob").map { $0["type"] } == ["dm_request"])

        for key in [alice, bob] {
            #expect(
                driver.call(.post, "/agents/dm/conversations/\(id)/send", key: key, json: ["message": "hi"]).status
                    == 403)
            #expect(driver.call(.get, "/agents/dm/conversations/\(id)", key: key).status == 403)
        }
        #expect(driver.call(.post, "/agents/dm/requests/\(id)/approve", key: alice).status == 404)
        let approved = driver.call(.post, "/agents/dm/requests/\(id)/approve", key: bob)
        #expect(approved.status == 200)
        #expect(approved["status"] == "approved")
        #expect(driver.call(.post, "/agents/dm/requests/\(id)/approve", key: bob)["already_approved"] == true)
        #expect(driver.call(.post, "/agents/dm/requests/\(id)/reject", key: bob).status == 400)
        #expect(driver.notifications(of: "bob").first?["read_at"] != .null)

        driver.advance(60)
        let sent = driver.call(
            .post, "/agents/dm/conversations/\(id)/send", key: alice, json: ["message": "Still there?"])
        #expect(sent.status == 201)
        #expect(sent["message"]?["content"] == "Still there?")
        let messageID = try #require(sent["message"]?["id"]?.stringValue)
        let list = driver.call(.get, "/agents/dm/conversations", key: bob)
        #expect(list["inbox"] == "main")
        #expect(list["total_unread"] == 2)
        let entry = try #require(list["conversations"]?["items"]?.arrayValue?.first)
        #expect(list["conversations"]?["count"] == 1)
        #expect(entry["with_agent"]?["name"] == "alice")
        #expect(entry["unread_count"] == 2)
        #expect(entry["you_initiated"] == false)
        #expect(entry["last_message_at"] == .string(SandboxTime.iso(driver.now)))
        #expect(driver.call(.get, "/home", key: bob)["your_direct_messages"]?["unread_message_count"] == "2")
        #expect(
            driver.call(.get, "/agents/dm/check", key: bob)["messages"]?["latest"]?.arrayValue?.first?["message_id"]
                == .string(messageID))

        driver.advance(60)
        let opened = driver.call(.get, "/agents/dm/conversations/\(id)", key: bob)
        #expect(opened.status == 200)
        let messages = try #require(opened["messages"]?.arrayValue)
        #expect(messages.map { $0["sender"]?["name"] } == ["alice", "alice"])
        #expect(messages.map { $0["is_read"] } == [false, false])
        #expect(messages.last?["id"] == .string(messageID))
        #expect(opened["conversation"]?["with_agent"]?["name"] == "alice")
        let reopened = driver.call(.get, "/agents/dm/conversations/\(id)", key: bob)
        #expect(reopened["messages"]?.arrayValue?.map { $0["is_read"] } == [true, true])
        #expect(driver.call(.get, "/agents/dm/conversations", key: bob)["total_unread"] == 0)
        #expect(driver.call(.get, "/agents/dm/check", key: bob)["has_activity"] == false)

        let answer = driver.call(.post, "/agents/dm/conversations/\(id)/send", key: bob, json: ["message": "Yes!"])
        #expect(answer.status == 201)
        #expect(driver.call(.get, "/agents/dm/conversations", key: alice)["total_unread"] == 1)
        let admin = try #require(driver.call(.get, "/_sandbox/dm/conversations")["conversations"]?.arrayValue?.first)
        #expect(admin["status"] == "approved")
        #expect(admin["decided_by"] == "agent")
        #expect(admin["messages"]?.arrayValue?.map { $0["read_at"] == .null } == [false, false, true])
        let stranger = driver.agent("stranger")
        #expect(driver.call(.get, "/agents/dm/conversations/\(id)", key: stranger).status == 404)
        #expect(
            driver.call(.post, "/agents/dm/conversations/\(id)/send", key: stranger, json: ["message": "x"]).status
                == 404)
    }

    /// The human approves through the admin route; a rejection frees the pair for a new request,
    /// a rejection with `block` does not; deciding a rejected request is 409.
    @Test func humanApprovalAndRejection() throws {
        let driver = SandboxDriver.inbox()
        let alice = driver.agent("alice")
        let bob = driver.agent("bob")
        let carol = driver.agent("carol")
        func request(_ key: String, to name: String) -> String {
            driver.call(
                .post, "/agents/dm/request", key: key, json: ["to": .string(name), "message": "Hello there, friend"])[
                    "conversation_id"]?.stringValue ?? ""
        }
        let first = request(alice, to: "bob")
        let human = driver.call(.post, "/_sandbox/dm/requests/\(first)/approve")
        #expect(human.status == 200)
        #expect(
            driver.call(.get, "/_sandbox/dm/conversations", query: ["agent": "bob"])["conversations"]?.arrayValue?
                .first?["decided_by"] == "human")
        #expect(
            driver.call(.post, "/agents/dm/conversations/\(first)/send", key: bob, json: ["message": "ok"]).status
                == 201)
        #expect(driver.call(.post, "/_sandbox/dm/requests/nope/approve").status == 404)

        let second = request(carol, to: "bob")
        let rejected = driver.call(.post, "/agents/dm/requests/\(second)/reject", key: bob)
        #expect(rejected["status"] == "rejected")
        #expect(driver.call(.post, "/_sandbox/dm/requests/\(second)/approve").status == 409)
        let third = request(carol, to: "bob")
        #expect(!third.isEmpty && third != second)
        #expect(
            driver.call(.post, "/agents/dm/requests/\(third)/reject", key: bob, json: ["block": true])["status"]
                == "blocked")
        #expect(
            driver.call(.post, "/agents/dm/request", key: carol, json: ["to": "bob", "message": "Please talk to me"])
                .status == 403)
        #expect(driver.call(.get, "/agents/dm/conversations", key: carol)["conversations"]?["count"] == 0)
    }

    /// Requests and sends share the `dm` limits: one per 10 seconds, 100 per rolling day, a 429 in
    /// the comment-cooldown shape counted under `dm`; unclaimed agents may not write DMs.
    @Test func dmLimits() throws {
        let driver = SandboxDriver(config: SandboxConfig(newAgentPeriodSeconds: 0, dmMinAgeSeconds: 0))
        let alice = driver.agent("alice")
        _ = driver.agent("bob")
        let id = try #require(
            driver.call(.post, "/agents/dm/request", key: alice, json: ["to": "bob", "message": "Hello bob, hello!"])[
                "conversation_id"]?.stringValue)
        driver.call(.post, "/_sandbox/dm/requests/\(id)/approve")
        let refused = driver.call(.post, "/agents/dm/conversations/\(id)/send", key: alice, json: ["message": "quick"])
        #expect(refused.status == 429)
        #expect(refused["error"] == "You can only send a direct message once every 10 seconds")
        #expect(refused["retry_after_seconds"] == 10)
        #expect(refused.headers["Retry-After"] == "10")
        #expect(driver.model.counters().rateLimitedByClass["dm"] == 1)
        driver.advance(10)
        #expect(
            driver.call(.post, "/agents/dm/conversations/\(id)/send", key: alice, json: ["message": "later"]).status
                == 201)
        for _ in 0..<98 {
            driver.advance(10)
            driver.call(.post, "/agents/dm/conversations/\(id)/send", key: alice, json: ["message": "more"])
        }
        driver.advance(10)
        let capped = driver.call(
            .post, "/agents/dm/conversations/\(id)/send", key: alice, json: ["message": "too many"])
        #expect(capped.status == 429)
        #expect(capped["daily_remaining"] == 0)

        let unclaimed = driver.agent("loner", claimed: false)
        #expect(
            driver.call(.post, "/agents/dm/request", key: unclaimed, json: ["to": "bob", "message": "Hello bob!!"])
                .status == 403)
        #expect(driver.call(.get, "/agents/dm/check", key: unclaimed).status == 200)
    }

    /// The open-source server and the minimal mock have no `/home`, notifications or DMs: every
    /// one of those routes answers their 404.
    @Test(arguments: [SandboxDialect.oss, .minimalMock])
    func otherDialectsHaveNoInbox(dialect: SandboxDialect) {
        let driver = SandboxDriver(config: SandboxConfig(dialect: dialect, dmMinAgeSeconds: 0))
        let key = driver.agent("walker")
        let routes =
            Self.dmRoutes + [
                (.get, "/home"), (.get, "/notifications"), (.post, "/notifications/read-by-post/p1"),
                (.post, "/notifications/read-all"),
            ]
        let missing = driver.call(.get, "/nowhere", key: key)
        for (method, path) in routes {
            let answer = driver.call(method, path, key: key, json: method == .post ? [:] : nil)
            #expect(answer.status == 404, "\(path)")
            #expect(answer.json == missing.json, "\(path)")
        }
    }
}
