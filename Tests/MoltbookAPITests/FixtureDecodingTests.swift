import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

@Suite("Decoding every fixture shape")
struct FixtureDecodingTests {
    /// The rich real registration response yields a wrapped key and the claim data.
    @Test func register() async throws {
        let (client, _) = try fixtureClient("register.json", status: 201)
        let registration = try await client.register(name: "TidePoolBot", description: "d").value
        #expect(registration.name == "TidePoolBot")
        #expect(registration.claimURL == "https://www.moltbook.com/claim/moltbook_claim_FIXTUREclaimTOKEN0000")
        #expect(registration.verificationCode == "reef-X4B2")
        #expect(registration.apiKey.withRawValue { $0 } == "moltbook_sk_FIXTUREfixtureFIXTUREfixture0000")
        #expect(!"\(registration.apiKey)".contains("FIXTURE"))
        #expect(registration.tweetTemplate?.contains("reef-X4B2") == true)
    }

    /// Both claim states decode.
    @Test(arguments: [("agents-status-pending.json", false), ("agents-status-claimed.json", true)])
    func status(file: String, claimed: Bool) async throws {
        let (client, _) = try fixtureClient(file)
        let status = try await client.status().value
        #expect(status.state == (claimed ? .claimed : .pendingClaim))
        #expect(status.agentName == "TidePoolBot")
    }

    /// The profile decodes under `agent` and under the documented `data` envelope alike.
    @Test(arguments: ["agents-me.json", "agents-me-data-envelope.json"])
    func me(file: String) async throws {
        let (client, _) = try fixtureClient(file)
        let agent = try await client.me().value
        #expect(agent.name == "TidePoolBot")
        #expect(agent.karma == 42)
        #expect(agent.isClaimed == true)
        #expect(agent.createdAt == MoltbookDate.parse("2026-02-20T10:00:00Z"))
    }

    /// Another agent's profile carries its recent posts.
    @Test func profile() async throws {
        let (client, transport) = try fixtureClient("agents-profile.json")
        let profile = try await client.profile(name: "ReefWatcher").value
        #expect(profile.agent.name == "ReefWatcher")
        #expect(profile.recentPosts.map(\.title) == ["Tide tables for agents"])
        #expect(transport.requests.first?.url.query == "name=ReefWatcher")
    }

    /// Every list envelope seen in the wild yields the same two posts.
    @Test(arguments: [
        "posts-feed-20260130.json", "posts-data-envelope.json", "posts-items-envelope.json", "posts-bare-array.json",
    ])
    func postListEnvelopes(file: String) async throws {
        let (client, _) = try fixtureClient(file)
        let page = try await client.posts().value
        #expect(
            page.items.map(\.id) == ["7a9f0df9-3c1e-4b8a-9f2d-1e6c5b4a3d21", "c3d2e1f0-a9b8-4c7d-8e6f-5a4b3c2d1e0f"])
        let first = try #require(page.items.first)
        #expect(first.author?.name == "ReefWatcher")
        #expect(first.submolt?.name == "general")
        #expect(first.score == 10)
        #expect(first.createdAt == MoltbookDate.parse("2026-01-30T06:46:15.074832Z"))
        #expect(page.items[1].url == "https://example.org/molting")
        #expect(page.items[1].content == nil)
    }

    /// The 1.12 cursor fields are surfaced.
    @Test func postCursor() async throws {
        let (client, _) = try fixtureClient("posts-feed-cursor.json")
        let page = try await client.feed().value
        #expect(page.hasMore)
        #expect(page.nextCursor == "eyJjIjoiMjAyNi0wMS0zMCJ9")
    }

    /// Author and submolt as plain strings, counts as strings.
    @Test func legacyStrings() async throws {
        let (client, _) = try fixtureClient("posts-author-string.json")
        let post = try #require(try await client.posts().value.items.first)
        #expect(post.author == AuthorRef(name: "ReefWatcher"))
        #expect(post.submolt == SubmoltRef(name: "general"))
        #expect(post.upvotes == 12)
    }

    /// Raw control characters inside strings do not break decoding.
    @Test func controlCharacters() async throws {
        let (client, _) = try fixtureClient("control-chars.json")
        let post = try #require(try await client.posts().value.items.first)
        #expect(post.title == "bell\u{07} and\ttab")
        #expect(post.content == "line one\nline two\u{01}")
    }

    /// A post with its comment tree; a comment list with replies.
    @Test func commentTrees() async throws {
        let (detailClient, _) = try fixtureClient("post-detail.json")
        let detail = try await detailClient.post(id: "7a9f0df9-3c1e-4b8a-9f2d-1e6c5b4a3d21").value
        #expect(detail.post.author?.name == "ReefWatcher")
        #expect(detail.comments.count == 1)
        #expect(detail.comments[0].replies.first?.parentID == detail.comments[0].id)
        let (listClient, _) = try fixtureClient("comments-tree.json")
        let page = try await listClient.comments(postID: "x", sort: .best).value
        #expect(page.items.flatMap(\.flattened).count == 2)
        #expect(!page.hasMore)
    }

    /// A plain create has no challenge.
    @Test func createWithoutChallenge() async throws {
        let (client, transport) = try fixtureClient("post-create.json", status: 201)
        let created = try await client.createPost(.text(submolt: "general", title: "Tide tables", content: "x")).value
        #expect(created.challenge == nil)
        #expect(created.item!.author?.name == "TidePoolBot")
        let body = try JSONValue.parse(try #require(transport.requests.first?.body))
        #expect(body["submolt_name"]?.string == "general")
        #expect(body["title"]?.string == "Tide tables")
        #expect(body["content"]?.string == "x")
    }

    /// Challenges are found in `post.verification`, `comment.verification`, `submolt.verification`
    /// and at the top level, with both timestamp formats.
    @Test func challenges() async throws {
        let (postClient, _) = try fixtureClient("post-create-challenge.json")
        let post = try await postClient.createPost(.text(submolt: "general", title: "t", content: "c")).value
        let postChallenge = try #require(post.challenge)
        #expect(postChallenge.code == "moltbook_verify_00c0ffee1234abcd")
        #expect(postChallenge.contentType == "post")
        #expect(postChallenge.contentID == "7a9f0df9-3c1e-4b8a-9f2d-1e6c5b4a3d21")
        #expect(postChallenge.expiresAt == MoltbookDate.parse("2026-03-01T10:05:00Z"))
        #expect(post.item!.verificationStatus == .pending)

        let (commentClient, _) = try fixtureClient("comment-create-challenge.json")
        let comment = try await commentClient.createComment(postID: "p", content: "Nice tides.").value
        let commentChallenge = try #require(comment.challenge)
        #expect(commentChallenge.expiresAt == MoltbookDate.parse("2026-06-22T21:42:16Z"))
        #expect(commentChallenge.contentType == "comment")

        let (topClient, _) = try fixtureClient("challenge-top-level.json")
        let top = try await topClient.createComment(postID: "p", content: "x").value
        #expect(top.challenge?.code == "moltbook_verify_7070707070707070")
        #expect(top.challenge?.contentID == "aa11bb22-cc33-4d44-8e55-ff6677889900")

        let (submoltClient, _) = try fixtureClient("submolt-create-challenge.json")
        let submolt = try await submoltClient.createSubmolt(NewSubmolt(name: "tide-pools", displayName: "Tide Pools"))
        #expect(submolt.value.challenge?.code == "moltbook_verify_5ub5ub5ub5ub5ub5")
        #expect(submolt.value.item!.yourRole == "owner")
    }

    /// Vote responses surface the toggle action.
    @Test(arguments: [
        ("vote-upvoted.json", VoteOutcome.upvoted), ("vote-removed.json", .removed), ("vote-changed.json", .changed),
    ])
    func votes(file: String, action: VoteOutcome) async throws {
        let (client, _) = try fixtureClient(file)
        let result = try await client.upvotePost(id: "p").value
        #expect(result.action == action)
        #expect(result.authorName == "ReefWatcher")
    }

    /// Membership responses keep their action.
    @Test(arguments: [
        ("subscribe.json", "subscribed"), ("unsubscribe.json", "unsubscribed"), ("follow.json", "followed"),
    ])
    func membership(file: String, action: String) async throws {
        let (client, _) = try fixtureClient(file)
        #expect(try await client.subscribe(submolt: "general").value.action == action)
    }

    /// Submolt list and detail.
    @Test func submolts() async throws {
        let (listClient, _) = try fixtureClient("submolts-list.json")
        #expect(try await listClient.submolts().value.items.map(\.subscriberCount) == [1500])
        let (oneClient, _) = try fixtureClient("submolt-get.json")
        let submolt = try await oneClient.submolt("general").value
        #expect(submolt.displayName == "General")
        #expect(submolt.yourRole == nil)
    }

    /// Search results of both kinds.
    @Test func search() async throws {
        let (client, _) = try fixtureClient("search-results.json")
        let page = try await client.search("tide tables").value
        #expect(page.items.map(\.type) == ["post", "comment"])
        #expect(page.items[1].postID == "7a9f0df9-3c1e-4b8a-9f2d-1e6c5b4a3d21")
        #expect(page.items[0].similarity == 0.83)
    }

    /// `POST /verify`: success and a wrong answer are outcomes; 409 and 410 are errors.
    @Test func verify() async throws {
        let (okClient, _) = try fixtureClient("verify-success.json")
        #expect(
            try await okClient.verify(code: "c", answer: "28.00").value
                == .verified(
                    contentType: "comment", contentID: "f1e2d3c4-b5a6-4978-8a9b-0c1d2e3f4a5b",
                    message: "Verification successful! Your comment is now published."))
        let (wrongClient, _) = try fixtureClient("verify-incorrect.json", status: 400)
        guard case .incorrect(_, _, let hint) = try await wrongClient.verify(code: "c", answer: "1.00").value else {
            Issue.record("expected .incorrect")
            return
        }
        #expect(hint == "answers must be to 2 decimal places")
        let (usedClient, _) = try fixtureClient("verify-already-answered.json", status: 409)
        #expect(await apiError { try await usedClient.verify(code: "c", answer: "1.00") }?.code == .conflict)
        let (expiredClient, _) = try fixtureClient("verify-expired.json", status: 410)
        #expect(await apiError { try await expiredClient.verify(code: "c", answer: "1.00") }?.code == .expired)
    }
}
