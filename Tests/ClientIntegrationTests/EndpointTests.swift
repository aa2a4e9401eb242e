import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltbookSandboxServer
import MoltipassTesting
import Testing

/// Every client endpoint, through `CurlTransport` over loopback to the sandbox.
@Suite("Endpoints over libcurl against the sandbox")
struct EndpointTests {
    /// Register, status pending → claimed through the admin switch, me, update, profile.
    @Test(.pinsItsDialect) func agentLifecycle() async throws {
        // moltbook.com's claim flow and profile shapes (the other dialects have none or others).
        let sandbox = try await SandboxHarness.start(config: SandboxConfig(dialect: .moltbookCom))
        defer { Task { await sandbox.stop() } }
        let registration = try await sandbox.client().register(name: "tide_bot", description: "Reads tides").value
        #expect(registration.apiKey.hasExpectedPrefix)
        #expect(registration.claimURL?.hasPrefix("https://www.moltbook.com/claim/") == true)
        let client = try sandbox.client(key: registration.apiKey)
        #expect(try await client.status().value.state == .pendingClaim)
        try await sandbox.admin(.post, "agents/tide_bot/claim")
        #expect(try await client.status().value.state == .claimed)
        let me = try await client.me().value
        #expect(me.name == "tide_bot")
        #expect(me.isClaimed == true)
        let updated = try await client.updateMe(description: "Reads tides, daily").value
        #expect(updated.description == "Reads tides, daily")
        let profile = try await client.profile(name: "tide_bot").value
        #expect(profile.agent.description == "Reads tides, daily")
        let missing = await apiError { try await client.profile(name: "nobody_here") }
        #expect(missing?.code == .notFound)
    }

    /// Name taken is a conflict; an invalid name is a bad request.
    @Test func registrationErrors() async throws {
        let sandbox = try await SandboxHarness.start()
        defer { Task { await sandbox.stop() } }
        let anonymous = try sandbox.client()
        _ = try await anonymous.register(name: "dupe", description: "first")
        #expect(await apiError { try await anonymous.register(name: "dupe", description: "second") }?.code == .conflict)
        #expect(
            await apiError { try await anonymous.register(name: "bad name!", description: "x") }?.code == .badRequest)
    }

    /// Posts: create text and link, get with comments, list with sort/limit/cursor, delete.
    @Test func posts() async throws {
        let sandbox = try await SandboxHarness.start(
            config: SandboxConfig(limits: .unlimited, newAgentPeriodSeconds: 0))
        defer { Task { await sandbox.stop() } }
        let client = try sandbox.client(key: try await sandbox.registeredAgent("poster"))
        var ids: [String] = []
        for index in 0..<5 {
            let created = try await client.createPost(
                .text(submolt: "general", title: "Post \(index)", content: "Body \(index)"))
            #expect(created.status == 201)  // every dialect of the sandbox answers a creation with 201
            #expect(created.value.challenge == nil)
            ids.append(created.value.item!.id)
            sandbox.clock.advance(by: 1)
        }
        let link = try await client.createPost(.link(submolt: "general", title: "A link", url: "https://example.org/x"))
        #expect(link.value.item!.url == "https://example.org/x")

        let first = try await client.posts(sort: .new, limit: 4).value
        #expect(first.items.count == 4)
        #expect(first.items.first?.title == "A link")
        #expect(first.hasMore)
        let second = try await client.posts(sort: .new, limit: 4, cursor: first.nextCursor).value
        #expect(second.items.count == 2)
        #expect(Set(first.items.map(\.id)).isDisjoint(with: second.items.map(\.id)))
        let bySubmolt = try await client.posts(sort: .top, limit: 50, submolt: "general").value
        #expect(bySubmolt.items.count == 6)

        let detail = try await client.post(id: ids[0]).value
        #expect(detail.post.title == "Post 0")
        #expect(detail.post.author?.name == "poster")
        _ = try await client.deletePost(id: ids[0])
        #expect(await apiError { try await client.post(id: ids[0]) }?.code == .notFound)
    }

    /// Comments with replies (`parent_id`), listed as a tree.
    @Test func comments() async throws {
        let sandbox = try await SandboxHarness.start(
            config: SandboxConfig(limits: .unlimited, newAgentPeriodSeconds: 0))
        defer { Task { await sandbox.stop() } }
        let client = try sandbox.client(key: try await sandbox.registeredAgent("talker"))
        let post = try await client.createPost(.text(submolt: "general", title: "Thread", content: "Talk")).value.item!
        let top = try await client.createComment(postID: post.id, content: "Top level").value.item!
        let reply = try await client.createComment(postID: post.id, content: "A reply", parentID: top.id).value.item!
        #expect(reply.parentID == top.id)
        let page = try await client.comments(postID: post.id, sort: .old).value
        #expect(page.items.map(\.id) == [top.id])
        #expect(page.items.first?.replies.map(\.id) == [reply.id])
        let detail = try await client.post(id: post.id).value
        #expect(detail.comments.flatMap(\.flattened).count == 2)
    }

    /// Votes toggle: up, up again removes, down after up changes; comment upvote too.
    @Test func votesToggle() async throws {
        let sandbox = try await SandboxHarness.start(
            config: SandboxConfig(limits: .unlimited, newAgentPeriodSeconds: 0))
        defer { Task { await sandbox.stop() } }
        let author = try sandbox.client(key: try await sandbox.registeredAgent("author"))
        let voter = try sandbox.client(key: try await sandbox.registeredAgent("voter"))
        let post = try await author.createPost(.text(submolt: "general", title: "Vote me", content: "x")).value.item!
        #expect(try await voter.upvotePost(id: post.id).value.action == .upvoted)
        #expect(try await voter.upvotePost(id: post.id).value.action == .removed)
        #expect(try await voter.upvotePost(id: post.id).value.action == .upvoted)
        #expect(try await voter.downvotePost(id: post.id).value.action == .changed)
        #expect(try await author.post(id: post.id).value.post.downvotes == 1)
        let comment = try await author.createComment(postID: post.id, content: "c").value.item!
        #expect(try await voter.upvoteComment(id: comment.id).value.action == .upvoted)
        #expect(sandbox.model.counters().votesRemoved == 1)
        #expect(sandbox.model.counters().votesChanged == 1)
    }

    /// A comment downvote (`POST /comments/ID/downvote`, the open-source server's route) lands
    /// on the comment's score and toggles like every vote: again removes it, an upvote changes it.
    @Test func commentDownvote() async throws {
        let sandbox = try await SandboxHarness.start(
            config: SandboxConfig(limits: .unlimited, newAgentPeriodSeconds: 0))
        defer { Task { await sandbox.stop() } }
        let author = try sandbox.client(key: try await sandbox.registeredAgent("author"))
        let voter = try sandbox.client(key: try await sandbox.registeredAgent("voter"))
        let post = try await author.createPost(.text(submolt: "general", title: "Thread", content: "x")).value.item!
        let comment = try await author.createComment(postID: post.id, content: "Hot take").value.item!
        func score() async throws -> Int? {
            try await author.comments(postID: post.id).value.items.first { $0.id == comment.id }?.score
        }
        #expect(try await score() == 0)
        let down = try await voter.downvoteComment(id: comment.id)
        #expect(down.status == 200)
        #expect(down.value.action == .downvoted)
        #expect(try await score() == -1)
        #expect(try await voter.downvoteComment(id: comment.id).value.action == .removed)
        #expect(try await score() == 0)
        #expect(try await voter.upvoteComment(id: comment.id).value.action == .upvoted)
        #expect(try await voter.downvoteComment(id: comment.id).value.action == .changed)
        #expect(try await score() == -1)
    }

    /// Submolts: list, get, create; subscribe = POST and unsubscribe = DELETE on one path; the
    /// personal and submolt feeds follow subscriptions.
    @Test func submoltsAndFeeds() async throws {
        let sandbox = try await SandboxHarness.start(
            config: SandboxConfig(limits: .unlimited, newAgentPeriodSeconds: 0))
        defer { Task { await sandbox.stop() } }
        let owner = try sandbox.client(key: try await sandbox.registeredAgent("owner"))
        let reader = try sandbox.client(key: try await sandbox.registeredAgent("reader"))
        let created = try await owner.createSubmolt(NewSubmolt(name: "tide-pools", displayName: "Tide Pools")).value
        #expect(created.item!.name == "tide-pools")
        #expect(try await owner.submolt("tide-pools").value.yourRole == "owner")
        #expect(try await owner.submolts(limit: 100).value.items.contains { $0.name == "tide-pools" })
        _ = try await owner.createPost(.text(submolt: "tide-pools", title: "Pools!", content: "x"))
        #expect(try await owner.submoltFeed("tide-pools").value.items.map(\.title) == ["Pools!"])

        #expect(try await reader.subscribe(submolt: "tide-pools").value.action == "subscribed")
        #expect(try await reader.feed().value.items.map(\.title) == ["Pools!"])
        #expect(try await reader.unsubscribe(submolt: "tide-pools").value.action == "unsubscribed")
        #expect(try await reader.unsubscribe(submolt: "tide-pools").value.action == "not_subscribed")
        #expect(try await reader.feed().value.items.isEmpty)
    }

    /// Follow = POST, unfollow = DELETE on one path; the following feed follows it.
    @Test func follows() async throws {
        let sandbox = try await SandboxHarness.start(
            config: SandboxConfig(limits: .unlimited, newAgentPeriodSeconds: 0))
        defer { Task { await sandbox.stop() } }
        let star = try sandbox.client(key: try await sandbox.registeredAgent("star"))
        let fan = try sandbox.client(key: try await sandbox.registeredAgent("fan"))
        _ = try await star.createPost(.text(submolt: "general", title: "From the star", content: "x"))
        #expect(try await fan.follow(agent: "star").value.action == "followed")
        #expect(try await fan.follow(agent: "star").value.action == "already_following")
        #expect(try await fan.feed(followingOnly: true).value.items.map(\.title) == ["From the star"])
        #expect(try await fan.unfollow(agent: "star").value.action == "unfollowed")
        #expect(try await fan.feed(followingOnly: true).value.items.isEmpty)
    }

    /// Search finds posts and comments by keyword.
    @Test func search() async throws {
        let sandbox = try await SandboxHarness.start(
            config: SandboxConfig(limits: .unlimited, newAgentPeriodSeconds: 0))
        defer { Task { await sandbox.stop() } }
        let client = try sandbox.client(key: try await sandbox.registeredAgent("seeker"))
        let post = try await client.createPost(.text(submolt: "general", title: "Lobster molting", content: "Shells"))
            .value
        _ = try await client.createComment(postID: post.item!.id, content: "Molting is fascinating")
        let all = try await client.search("molting").value
        #expect(Set(all.items.map(\.type)) == ["post", "comment"])
        let postsOnly = try await client.search("molting", type: .posts).value
        #expect(postsOnly.items.map(\.id) == [post.item!.id])
    }

    /// Avatar: a PNG uploads; wrong type and oversize are refused before any byte is sent.
    @Test(.pinsItsDialect) func avatar() async throws {
        // moltbook.com's avatar route and size limit.
        let sandbox = try await SandboxHarness.start(config: SandboxConfig(dialect: .moltbookCom))
        defer { Task { await sandbox.stop() } }
        let client = try sandbox.client(key: try await sandbox.registeredAgent("pic"))
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 7, count: 200)
        _ = try await client.uploadAvatar(png)
        #expect(try await client.me().value.avatarURL != nil)
        _ = try await client.deleteAvatar()
        let before = sandbox.model.counters().requestsTotal
        #expect(await apiError { try await client.uploadAvatar(Data("not an image".utf8)) }?.code == .invalidRequest)
        let huge = Data([0xFF, 0xD8, 0xFF]) + Data(repeating: 0, count: MoltbookClient.maxAvatarBytes)
        #expect(await apiError { try await client.uploadAvatar(huge) }?.code == .payloadTooLarge)
        #expect(sandbox.model.counters().requestsTotal == before)
    }
}
