import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

@Suite("Home and notifications")
struct InboxDecodingTests {
    /// moltbook.com's dashboard: flat `post_id`, DM counts as strings, both timestamp formats.
    @Test func home() async throws {
        let (client, transport) = try fixtureClient("home.json")
        let home = try await client.home().value
        #expect(transport.requests.map { "\($0.method.rawValue) \($0.url.path)" } == ["GET /api/v1/home"])
        let account = try #require(home.account)
        #expect(account.name == "TidePoolBot")
        #expect(account.karma == 42)
        #expect(account.unreadNotificationCount == 3)
        #expect(
            home.activityOnYourPosts.map(\.postID) == [
                "7a9f0df9-3c1e-4b8a-9f2d-1e6c5b4a3d21", "c3d2e1f0-a9b8-4c7d-8e6f-5a4b3c2d1e0f",
            ])
        let first = home.activityOnYourPosts[0]
        #expect(first.postTitle == "Tide tables for agents")
        #expect(first.submoltName == "general")
        #expect(first.newNotificationCount == 2)
        #expect(first.latestAt == MoltbookDate.parse("2026-03-01T09:58:12.123456Z"))
        #expect(first.latestCommenters == ["ReefWatcher", "KelpBot"])
        #expect(first.preview == "Which port do you read them for?")
        #expect(home.activityOnYourPosts[1].newNotificationCount == 1)
        #expect(home.activityOnYourPosts[1].latestAt == MoltbookDate.parse("2026-03-01T08:00:00Z"))
        #expect(home.directMessages?.pendingRequestCount == 2)
        #expect(home.directMessages?.unreadMessageCount == 1)
    }

    /// The dashboard under `data`, camelCase, counts as strings, the post nested, commenters as
    /// objects; an item without a post id is dropped and an absent DM section is nil.
    @Test func homeDataEnvelope() async throws {
        let (client, _) = try fixtureClient("home-data-camel.json")
        let home = try await client.home().value
        #expect(home.account?.karma == 42)
        #expect(home.account?.unreadNotificationCount == 3)
        let activity = try #require(home.activityOnYourPosts.first)
        #expect(home.activityOnYourPosts.count == 1)
        #expect(activity.postID == "7a9f0df9-3c1e-4b8a-9f2d-1e6c5b4a3d21")
        #expect(activity.postTitle == "Tide tables for agents")
        #expect(activity.submoltName == "general")
        #expect(activity.latestCommenters == ["ReefWatcher", "KelpBot"])
        #expect(activity.latestAt == MoltbookDate.parse("2026-03-01T09:58:12.123456Z"))
        #expect(home.directMessages == nil)
    }

    /// A 200 without any dashboard section is a shape error, not an empty dashboard.
    @Test func homeWithoutSections() async throws {
        let transport = StubTransport(status: 200, body: Data(#"{"success":true,"posts":[]}"#.utf8))
        let client = try MoltbookClient(
            apiKey: APIKey("moltbook_sk_unit_test_key_0000000000000000"), transport: transport)
        let error = try #require(await apiError { try await client.home() })
        #expect(error.code == .undecodable)
        #expect(error.endpoint == "GET /home")
    }

    /// moltbook.com's camelCase notifications with unread count and cursor; limit and cursor are sent.
    @Test func notifications() async throws {
        let (client, transport) = try fixtureClient("notifications.json")
        let page = try await client.notifications(limit: 50, cursor: "abc").value
        #expect(transport.requests.first?.url.path == "/api/v1/notifications")
        #expect(transport.requests.first?.url.query == "limit=50&cursor=abc")
        #expect(page.items.map(\.id) == ["n-3", "n-2", "n-1"])
        #expect(page.items.map(\.type) == [.commentReply, .postComment, .postUpvote])
        let reply = page.items[0]
        #expect(reply.postID == "7a9f0df9-3c1e-4b8a-9f2d-1e6c5b4a3d21")
        #expect(reply.commentID == "cm-22")
        #expect(!reply.isRead)
        #expect(reply.actorName == "KelpBot")
        #expect(reply.content == "KelpBot replied to your comment")
        #expect(reply.createdAt == MoltbookDate.parse("2026-03-01T09:59:00Z"))
        #expect(page.items[2].isRead)
        #expect(page.items[2].commentID == nil)
        #expect(page.unreadCount == 2)
        #expect(page.hasMore)
        #expect(page.nextCursor == "bi0x")
    }

    /// snake_case items under `data`: numeric ids, booleans as strings and numbers, the actor
    /// as `actor{name}`, `actor_name` or `from{name}`, unknown types kept, id-less items dropped.
    @Test func notificationsSnakeCase() async throws {
        let (client, _) = try fixtureClient("notifications-snake-data.json")
        let page = try await client.notifications().value
        #expect(page.items.map(\.id) == ["1003", "1002", "1001", "1000"])
        #expect(page.items.map(\.type) == [.commentReply, .postComment, .mention, .other("karma_milestone")])
        #expect(page.items.map(\.isRead) == [false, false, true, true])
        #expect(page.items.map(\.actorName) == ["KelpBot", "ReefWatcher", "SandDollar", nil])
        #expect(page.items.map(\.commentID) == ["cm-22", "cm-21", nil, nil])
        #expect(page.items[1].postID == "7a9f0df9-3c1e-4b8a-9f2d-1e6c5b4a3d21")
        #expect(page.items[1].content == "ReefWatcher commented on your post")
        #expect(page.items[0].createdAt == MoltbookDate.parse("2026-03-01T09:59:00Z"))
        #expect(page.unreadCount == 2)
        #expect(!page.hasMore)
        #expect(page.nextCursor == nil)
    }

    /// A bare array of notifications, the actor as a plain `from` string.
    @Test func notificationsBareArray() async throws {
        let (client, _) = try fixtureClient("notifications-bare-array.json")
        let page = try await client.notifications().value
        #expect(page.items.map(\.type) == [.dmRequest, .mention])
        #expect(page.items.map(\.actorName) == ["SandDollar", "KelpBot"])
        #expect(page.items[1].commentID == "cm-90")
        #expect(page.unreadCount == nil)
    }

    /// Each type's spelling reads back to its case and its raw value.
    @Test(arguments: [
        ("post_comment", MoltbookNotification.Kind.postComment), ("postComment", .postComment),
        ("comment_reply", .commentReply), ("mention", .mention), ("DM_REQUEST", .dmRequest),
        ("post_upvote", .postUpvote), ("follow", .other("follow")),
    ])
    func kinds(text: String, kind: MoltbookNotification.Kind) {
        #expect(MoltbookNotification.Kind(text) == kind)
        #expect(MoltbookNotification.Kind(kind.rawValue) == kind)
    }

    /// Read-marking posts to the post's route (or read-all) and reports the count.
    @Test func markRead() async throws {
        let (client, transport) = try fixtureClient("notifications-read.json")
        #expect(try await client.markNotificationsRead(postID: "7a9f0df9").value.count == 2)
        #expect(try await client.markAllNotificationsRead().value.count == 2)
        #expect(
            transport.requests.map { "\($0.method.rawValue) \($0.url.path)" } == [
                "POST /api/v1/notifications/read-by-post/7a9f0df9", "POST /api/v1/notifications/read-all",
            ])
        let blank = await apiError { try await client.markNotificationsRead(postID: " ") }
        #expect(blank?.code == .invalidRequest)
        #expect(blank?.endpoint == "POST /notifications/read-by-post/ID")
        #expect(transport.requests.count == 2)
    }

    /// A server without these routes (the open-source server) answers 404: not found, never a key problem.
    @Test func missingRoutes() async throws {
        let (client, _) = try fixtureClient("error-404-endpoint.json", status: 404)
        #expect(await apiError { try await client.home() }?.code == .notFound)
        #expect(await apiError { try await client.notifications() }?.code == .notFound)
        #expect(await apiError { try await client.dmCheck() }?.code == .notFound)
    }
}
