import Foundation
import MoltbookAPI
import MoltbookSandbox
import Testing

extension SandboxDriver {
    /// A driver without limits whose agents may use DMs at once.
    static func inbox(seed: UInt64 = 1, simulation: SandboxSimulation = SandboxSimulation()) -> SandboxDriver {
        SandboxDriver(
            config: SandboxConfig(
                limits: .unlimited, newAgentPeriodSeconds: 0, dmMinAgeSeconds: 0, simulation: simulation),
            seed: seed)
    }

    /// The admin list of notifications (`GET /_sandbox/notifications`), of one agent when named.
    func notifications(of agent: String? = nil) -> [JSON] {
        call(.get, "/_sandbox/notifications", query: agent.map { ["agent": $0] } ?? [:])["notifications"]?
            .arrayValue ?? []
    }
}

@Suite struct InboxTests {
    /// A comment on a post, a reply to a comment and an @mention each notify the right agent once,
    /// never the actor, and `GET /notifications` lists them newest first in the documented shape.
    @Test func notificationsOfComments() throws {
        let driver = SandboxDriver.inbox()
        let alice = driver.agent("alice")
        let bob = driver.agent("bob")
        let carol = driver.agent("carol")
        let post = driver.post(alice, title: "Tide tables")
        driver.advance(60)
        let bobComment = driver.comment(bob, on: post, "Nice tables")
        driver.advance(60)
        let aliceReply = driver.comment(alice, on: post, "Thanks bob", parent: bobComment)
        driver.advance(60)
        let carolReply = driver.comment(carol, on: post, "Agreed, and hi @bob and @nobody", parent: aliceReply)
        driver.advance(60)
        _ = driver.comment(bob, on: post, "@carol @alice look at this")

        let types = driver.notifications().map { [$0["agent"], $0["type"], $0["actor"]] }
        #expect(
            types == [
                ["alice", "post_comment", "bob"], ["bob", "comment_reply", "alice"],
                ["alice", "comment_reply", "carol"], ["bob", "mention", "carol"],
                ["alice", "post_comment", "bob"], ["carol", "mention", "bob"],
            ])

        let listed = driver.call(.get, "/notifications", key: alice)
        #expect(listed.status == 200)
        #expect(listed["unread_count"] == 3)
        #expect(listed["has_more"] == false)
        let items = try #require(listed["notifications"]?.arrayValue)
        #expect(items.map { $0["type"] } == ["post_comment", "comment_reply", "post_comment"])
        let reply = items[1]
        #expect(reply["relatedPostId"] == .string(post))
        #expect(reply["relatedCommentId"] == .string(carolReply))
        #expect(reply["actorName"] == "carol")
        #expect(reply["isRead"] == false)
        #expect(reply["createdAt"] == .string(SandboxTime.iso(SandboxDriver.t0.addingTimeInterval(180))))
        #expect(reply["content"]?.stringValue?.hasPrefix("carol replied to your comment: Agreed") == true)
        #expect(
            WireAnswer.keys(reply) == [
                "actorName", "content", "createdAt", "id", "isRead", "relatedCommentId", "relatedPostId", "type",
            ])
    }

    /// read-by-post marks the notifications of that post that exist at that instant, not the
    /// comments after it; read-all marks the rest; the admin list shows `read_at`.
    @Test func readByPostMarksOnlyWhatExists() throws {
        let driver = SandboxDriver.inbox()
        let alice = driver.agent("alice")
        let bob = driver.agent("bob")
        let first = driver.post(alice, title: "First")
        let second = driver.post(alice, title: "Second")
        _ = driver.comment(bob, on: first, "one")
        driver.advance(10)
        _ = driver.comment(bob, on: first, "two")
        _ = driver.comment(bob, on: second, "elsewhere")
        driver.advance(10)
        let readAt = driver.now
        let marked = driver.call(.post, "/notifications/read-by-post/\(first)", key: alice)
        #expect(marked.status == 200)
        #expect(marked["marked_read"] == 2)
        driver.advance(10)
        _ = driver.comment(bob, on: first, "three")
        #expect(driver.call(.post, "/notifications/read-by-post/\(first)", key: alice)["marked_read"] == 1)
        #expect(driver.call(.post, "/notifications/read-by-post/\(first)", key: alice)["marked_read"] == 0)

        let admin = driver.notifications(of: "alice")
        #expect(admin.count == 4)
        #expect(admin[0]["read_at"] == .string(SandboxTime.iso(readAt)))
        #expect(admin[1]["read_at"] == .string(SandboxTime.iso(readAt)))
        #expect(admin[2]["post_id"] == .string(second))
        #expect(admin[2]["read_at"] == .null)
        #expect(admin[3]["read_at"] == .string(SandboxTime.iso(driver.now)))
        #expect(
            WireAnswer.keys(admin[0]) == [
                "actor", "agent", "comment_id", "content", "conversation_id", "created_at", "id", "post_id", "read_at",
                "type",
            ])

        #expect(driver.call(.post, "/notifications/read-all", key: alice)["marked_read"] == 1)
        #expect(driver.call(.get, "/notifications", key: alice)["unread_count"] == 0)
        #expect(driver.call(.post, "/notifications/read-by-post/nope", key: alice).status == 404)
        #expect(driver.model.counters().notificationsMarkedRead == 4)
    }

    /// `/home` lists the agent's posts with unread comments and replies (count, latest instant,
    /// commenters newest first, preview), DM counts as strings, and followed agents' posts.
    @Test func homeDashboard() throws {
        let driver = SandboxDriver.inbox()
        let alice = driver.agent("alice")
        let bob = driver.agent("bob")
        let carol = driver.agent("carol")
        let quiet = driver.post(alice, title: "Quiet")
        let busy = driver.post(alice, title: "Busy")
        let bobPost = driver.post(bob, title: "Bob's own")
        driver.call(.post, "/agents/bob/follow", key: alice)
        driver.advance(60)
        let bobComment = driver.comment(bob, on: busy, "first!")
        driver.advance(60)
        _ = driver.comment(carol, on: busy, "second, with a long line of text")
        driver.call(.post, "/posts/\(quiet)/upvote", key: carol)
        driver.advance(60)
        let aliceReply = driver.comment(alice, on: busy, "thanks", parent: bobComment)
        _ = driver.comment(bob, on: bobPost, "talking to myself")
        driver.advance(60)
        _ = driver.comment(bob, on: busy, "you're welcome", parent: aliceReply)

        let home = driver.call(.get, "/home", key: alice)
        #expect(home.status == 200)
        #expect(home["your_account"]?["name"] == "alice")
        #expect(home["your_account"]?["unread_notification_count"] == 4)
        #expect(home["your_direct_messages"]?["pending_request_count"] == "0")
        #expect(home["your_direct_messages"]?["unread_message_count"] == "0")
        #expect(home["latest_moltbook_announcement"] == .null)
        let activity = try #require(home["activity_on_your_posts"]?.arrayValue)
        #expect(activity.count == 1)
        let item = activity[0]
        #expect(item["post_id"] == .string(busy))
        #expect(item["post_title"] == "Busy")
        #expect(item["submolt_name"] == "general")
        #expect(item["new_notification_count"] == 3)
        #expect(item["latest_at"] == .string(SandboxTime.iso(driver.now)))
        #expect(item["latest_commenters"] == ["bob", "carol"])
        #expect(item["preview"] == "you're welcome")
        #expect(item["suggested_actions"]?.arrayValue?.isEmpty == false)
        let followed = home["posts_from_accounts_you_follow"]
        #expect(followed?["total_following"] == 1)
        #expect(followed?["posts"]?.arrayValue?.map { $0["post_id"] } == [.string(bobPost)])
        #expect(followed?["posts"]?.arrayValue?.first?["author_name"] == "bob")

        driver.call(.post, "/notifications/read-by-post/\(busy)", key: alice)
        let after = driver.call(.get, "/home", key: alice)
        #expect(after["activity_on_your_posts"] == [])
        #expect(after["your_account"]?["unread_notification_count"] == 1)
    }

    /// An upvote notifies the post's author once (`post_upvote`); removing and voting again does not
    /// add a second; comment votes notify nobody.
    @Test func upvoteNotifications() {
        let driver = SandboxDriver.inbox()
        let alice = driver.agent("alice")
        let bob = driver.agent("bob")
        let post = driver.post(alice)
        let comment = driver.comment(alice, on: post, "mine")
        driver.call(.post, "/posts/\(post)/upvote", key: bob)
        driver.call(.post, "/posts/\(post)/upvote", key: bob)
        driver.call(.post, "/posts/\(post)/downvote", key: bob)
        driver.call(.post, "/comments/\(comment)/upvote", key: bob)
        #expect(driver.notifications().map { $0["type"] } == ["post_upvote"])
        driver.call(.post, "/posts/\(post)/upvote", key: bob)
        #expect(driver.notifications().map { $0["type"] } == ["post_upvote", "post_upvote"])
    }

    /// A challenged comment notifies only once it is verified, dated then; a failed one never.
    @Test func challengedCommentsNotifyWhenVerified() throws {
        let driver = SandboxDriver(
            config: SandboxConfig(limits: .unlimited, newAgentPeriodSeconds: 0, challengeRate: 1))
        let alice = driver.agent("alice")
        let bob = driver.agent("bob")
        let postAnswer = driver.call(
            .post, "/posts", key: alice, json: ["submolt_name": "general", "title": "Guarded", "content": "c"])
        let post = try #require(postAnswer["post"]?["id"]?.stringValue)
        let postCode = try #require(postAnswer["post"]?["verification"]?["verification_code"]?.stringValue)
        driver.call(
            .post, "/verify", key: alice,
            json: [
                "verification_code": .string(postCode),
                "answer": .string(driver.model.expectedAnswer(forVerificationCode: postCode) ?? ""),
            ])
        let created = driver.call(.post, "/posts/\(post)/comments", key: bob, json: ["content": "hello"])
        let code = try #require(created["comment"]?["verification"]?["verification_code"]?.stringValue)
        #expect(driver.notifications().isEmpty)
        driver.advance(30)
        let answer = try #require(driver.model.expectedAnswer(forVerificationCode: code))
        #expect(
            driver.call(
                .post, "/verify", key: bob, json: ["verification_code": .string(code), "answer": .string(answer)]
            ).status == 200)
        let listed = driver.notifications()
        #expect(listed.count == 1)
        #expect(listed.first?["created_at"] == .string(SandboxTime.iso(driver.now)))
        let failed = driver.call(.post, "/posts/\(post)/comments", key: bob, json: ["content": "again"])
        let failedCode = try #require(failed["comment"]?["verification"]?["verification_code"]?.stringValue)
        driver.call(.post, "/verify", key: bob, json: ["verification_code": .string(failedCode), "answer": "-1"])
        #expect(driver.notifications().count == 1)
    }

    /// `GET /notifications` pages with `limit` and `next_cursor`, newest first, without repeats.
    @Test func notificationPages() throws {
        let driver = SandboxDriver.inbox()
        let alice = driver.agent("alice")
        let bob = driver.agent("bob")
        let post = driver.post(alice)
        for index in 0..<12 {
            _ = driver.comment(bob, on: post, "comment \(index)")
            driver.advance(1)
        }
        let first = driver.call(.get, "/notifications", key: alice, query: ["limit": "5"])
        #expect(first["has_more"] == true)
        #expect(first["count"] == 5)
        let cursor = try #require(first["next_cursor"]?.stringValue)
        let second = driver.call(.get, "/notifications", key: alice, query: ["limit": "10", "cursor": cursor])
        #expect(second["has_more"] == false)
        let ids = (first["notifications"]?.arrayValue ?? []) + (second["notifications"]?.arrayValue ?? [])
        #expect(Set(ids.compactMap { $0["id"]?.stringValue }).count == 12)
        #expect(ids.first?["content"]?.stringValue?.hasSuffix("comment 11") == true)
        #expect(driver.call(.get, "/notifications", key: alice, query: ["cursor": "%%%"]).status == 400)
    }

    /// Per-agent endpoint counts (`requests_by_agent_endpoint`) and the instants of each `/home`
    /// read (`home_reads`), over the admin counters.
    @Test func perAgentEndpointCounters() throws {
        let driver = SandboxDriver.inbox()
        let alice = driver.agent("alice")
        let bob = driver.agent("bob")
        let post = driver.post(alice)
        driver.call(.get, "/home", key: alice)
        driver.advance(1_800)
        driver.call(.get, "/home", key: alice)
        driver.call(.get, "/home", key: bob)
        _ = driver.comment(bob, on: post, "hi")
        driver.call(.post, "/notifications/read-by-post/\(post)", key: alice)
        let counters = driver.call(.get, "/_sandbox/counters")
        let byEndpoint = try #require(counters["requests_by_agent_endpoint"])
        #expect(byEndpoint["alice"]?["GET /home"] == 2)
        #expect(byEndpoint["alice"]?["POST /posts"] == 1)
        #expect(byEndpoint["alice"]?["POST /notifications/read-by-post/:id"] == 1)
        #expect(byEndpoint["bob"]?["GET /home"] == 1)
        #expect(byEndpoint["bob"]?["POST /posts/:id/comments"] == 1)
        #expect(
            counters["home_reads"]?["alice"]
                == [.string(SandboxTime.iso(SandboxDriver.t0)), .string(SandboxTime.iso(driver.now))])
        let decoded = try JSONDecoder().decode(SandboxCounters.self, from: counters.body)
        #expect(decoded == driver.model.counters())
    }

    /// Every inbox route counts in the right limit class: reads, writes, and `dm` for sending.
    @Test func limitClasses() {
        let table: [(HTTPMethod, String, String)] = [
            (.get, "/api/v1/home", "read"), (.get, "/api/v1/notifications", "read"),
            (.post, "/api/v1/notifications/read-by-post/p1", "write"),
            (.post, "/api/v1/notifications/read-all", "write"),
            (.get, "/api/v1/agents/dm/check", "read"), (.get, "/api/v1/agents/dm/requests", "read"),
            (.post, "/api/v1/agents/dm/requests/c1/approve", "write"),
            (.post, "/api/v1/agents/dm/requests/c1/reject", "write"),
            (.get, "/api/v1/agents/dm/conversations", "read"), (.get, "/api/v1/agents/dm/conversations/c1", "read"),
            (.post, "/api/v1/agents/dm/conversations/c1/send", "dm"), (.post, "/api/v1/agents/dm/request", "dm"),
        ]
        for (method, path, expected) in table {
            #expect(SandboxRouter.limitClass(method: method, path: path) == expected, "\(method) \(path)")
        }
    }
}
