import Foundation
import MoltbookAPI
import MoltbookSandbox
import Testing

@Suite struct SimulationTests {
    /// A busy simulated world: many comments, DMs and mention posts in a few days.
    static let busy = SandboxSimulation(
        agents: 4, replyProbability: 0.9, replyDecay: 0.8, mentionPostsPerDay: 3, dmRequestsPerDay: 6,
        dmAnswerProbability: 0.9)

    /// The admin views of the world (comments, notifications, conversations) as one value.
    static func world(_ driver: SandboxDriver) -> [JSON] {
        [
            driver.call(.get, "/_sandbox/comments").json, driver.call(.get, "/_sandbox/notifications").json,
            driver.call(.get, "/_sandbox/dm/conversations").json,
        ]
    }

    /// A real agent that posts every six hours and answers nothing, over two days; `poll` is how
    /// often it reads `/home` (0: never).
    static func quietAgent(seed: UInt64, poll: TimeInterval) -> SandboxDriver {
        let driver = SandboxDriver.inbox(seed: seed, simulation: busy)
        let key = driver.agent("walker")
        let end = SandboxDriver.t0.addingTimeInterval(2 * 86_400)
        var nextPost = driver.now
        while driver.now < end {
            if driver.now >= nextPost {
                _ = driver.post(key, title: "Walk \(Int(driver.now.timeIntervalSince(SandboxDriver.t0)))")
                nextPost = driver.now.addingTimeInterval(6 * 3_600)
            }
            if poll > 0 { driver.call(.get, "/home", key: key) }
            driver.advance(poll > 0 ? poll : 6 * 3_600)
        }
        driver.now = end
        return driver
    }

    /// The same seed and the same requests give the same world, however often anyone polls:
    /// events are applied in time order and dated at their own instants.
    @Test func deterministicWhateverThePolling() {
        let often = Self.world(Self.quietAgent(seed: 3, poll: 600))
        let never = Self.world(Self.quietAgent(seed: 3, poll: 0))
        #expect(often == never)
        let other = Self.world(Self.quietAgent(seed: 4, poll: 0))
        #expect(other != never)
        let comments = never[0]["comments"]?.arrayValue ?? []
        #expect(comments.count >= 8)
        #expect(comments.allSatisfy { $0["simulated"] == true && $0["parent_id"] == .null })
    }

    /// Simulated agents are registered, claimed, 30 days old, named `sim-<word>`, and visible to
    /// agents; with the simulation off there are none.
    @Test func simulatedAgents() throws {
        let driver = SandboxDriver.inbox(simulation: SandboxSimulation(agents: 3))
        let key = driver.agent("walker")
        let summary = driver.call(.get, "/_sandbox/simulation")
        #expect(summary["agents"] == ["sim-kelp", "sim-coral", "sim-tide"])
        let profile = driver.call(.get, "/agents/profile", key: key, query: ["name": "sim-coral"])
        #expect(profile.status == 200)
        #expect(profile["agent"]?["is_claimed"] == true)
        #expect(
            profile["agent"]?["created_at"]
                == .string(SandboxTime.iso(SandboxDriver.t0.addingTimeInterval(-30 * 86_400))))
        #expect(driver.call(.post, "/agents/register", json: ["name": "sim-kelp"]).status == 409)

        let off = SandboxDriver.inbox()
        let offKey = off.agent("walker")
        #expect(off.call(.get, "/_sandbox/simulation")["agents"] == [])
        #expect(off.call(.get, "/agents/profile", key: offKey, query: ["name": "sim-kelp"]).status == 404)
    }

    /// A real agent that answers every comment and reply addressed to it still sees a finite
    /// stream: each simulated agent answers at most `max_reply_depth` times per thread, never
    /// answers simulated content, and after a while nothing more is scheduled on its post.
    @Test func repliesAreBounded() throws {
        let settings = SandboxSimulation(
            agents: 5, minCommentsPerPost: 3, maxCommentsPerPost: 3, replyProbability: 1, replyDecay: 1,
            maxReplyDepth: 2, mentionPostsPerDay: 0, dmRequestsPerDay: 0)
        let driver = SandboxDriver.inbox(seed: 11, simulation: settings)
        let key = driver.agent("walker")
        let post = driver.post(key, title: "Ask me anything")
        var answered: Set<String> = []
        for _ in 0..<(5 * 24 * 6) {
            driver.advance(600)
            let listed = driver.call(.get, "/notifications", key: key, query: ["limit": "100"])
            for item in listed["notifications"]?.arrayValue ?? [] {
                guard let comment = item["relatedCommentId"]?.stringValue, answered.insert(comment).inserted,
                    let postID = item["relatedPostId"]?.stringValue
                else { continue }
                _ = driver.comment(key, on: postID, "Thanks for that", parent: comment)
            }
            driver.call(.post, "/notifications/read-all", key: key)
        }
        let comments = driver.call(.get, "/_sandbox/comments", query: ["post": post])["comments"]?.arrayValue ?? []
        let simulated = comments.filter { $0["simulated"] == true }
        let byID = Dictionary(uniqueKeysWithValues: comments.map { ($0["id"]?.stringValue ?? "", $0) })
        #expect(simulated.filter { $0["parent_id"] == .null }.count == 3)
        for comment in simulated {
            if let parent = comment["parent_id"]?.stringValue { #expect(byID[parent]?["author"] == "walker") }
        }
        for author in Set(simulated.compactMap { $0["author"]?.stringValue }) {
            // One top-level comment, then one or two answers (the depth each picked; all answered).
            #expect((2...3).contains(simulated.filter { $0["author"]?.stringValue == author }.count))
        }
        #expect(answered.count == simulated.count)
        let summary = driver.call(.get, "/_sandbox/simulation")
        #expect(summary["scheduled"] == [])
        #expect(summary["events"]?["comment"] == 3)
        #expect(summary["events"]?["reply"] == .int(simulated.count - 3))
        let threads = summary["threads"]?.arrayValue ?? []
        #expect(threads.count == 3)
        #expect(threads.allSatisfy { $0["replies"] == $0["max_replies"] })
    }

    /// The simulated agents mention real agents (a post naming it, a `mention` notification) and
    /// upvote posts; a real comment on a simulated post may be answered as a reply.
    @Test func mentionsAndUpvotes() throws {
        let settings = SandboxSimulation(
            agents: 3, replyProbability: 1, mentionPostsPerDay: 4, upvoteProbability: 1, dmRequestsPerDay: 0)
        let driver = SandboxDriver.inbox(seed: 5, simulation: settings)
        let key = driver.agent("walker")
        _ = driver.post(key, title: "Upvote me")
        driver.advance(2 * 86_400)
        let notifications = driver.call(.get, "/notifications", key: key, query: ["limit": "100"])
        let items = notifications["notifications"]?.arrayValue ?? []
        let mention = try #require(items.first { $0["type"] == "mention" && $0["relatedCommentId"] == .null })
        #expect(items.contains { $0["type"] == "post_upvote" })
        let postID = try #require(mention["relatedPostId"]?.stringValue)
        let post = driver.call(.get, "/posts/\(postID)", key: key)
        #expect(post["post"]?["title"]?.stringValue?.contains("@walker") == true)
        let author = try #require(post["post"]?["author"]?["name"]?.stringValue)
        #expect(author.hasPrefix("sim-"))
        _ = driver.comment(key, on: postID, "Thanks for the mention!")
        driver.advance(2 * 3_600)
        let replies = driver.call(.get, "/_sandbox/comments", query: ["post": postID])["comments"]?.arrayValue ?? []
        #expect(replies.map { $0["author"] } == ["walker", .string(author)])
        #expect(replies.last?["depth"] == 2)
    }

    /// Simulated agents send DM requests; about half are approved by the human after a delay, the
    /// rest stay pending; in approved ones they write, and answer a real agent's message within
    /// their bounds.
    @Test func directMessagesFromSimulatedAgents() throws {
        let settings = SandboxSimulation(
            agents: 6, mentionPostsPerDay: 0, dmRequestsPerDay: 12, dmAnswerProbability: 1, dmMaxAnswers: 2)
        let driver = SandboxDriver.inbox(seed: 7, simulation: settings)
        let key = driver.agent("walker")
        driver.advance(86_400)
        let all = driver.call(.get, "/_sandbox/dm/conversations")["conversations"]?.arrayValue ?? []
        #expect(all.count == 6)
        #expect(all.allSatisfy { $0["to"] == "walker" && $0["from"]?.stringValue?.hasPrefix("sim-") == true })
        let approved = all.filter { $0["status"] == "approved" }
        #expect(!approved.isEmpty && approved.count < all.count)
        #expect(approved.allSatisfy { $0["decided_by"] == "human" })
        let pending = driver.call(.get, "/agents/dm/requests", key: key)["requests"]?.arrayValue ?? []
        #expect(pending.count == all.count - approved.count)

        let listed = driver.call(.get, "/agents/dm/conversations", key: key)
        #expect(listed["conversations"]?["count"] == .int(approved.count))
        let id = try #require(approved.first?["conversation_id"]?.stringValue)
        for _ in 0..<4 {
            driver.advance(20)
            driver.call(.post, "/agents/dm/conversations/\(id)/send", key: key, json: ["message": "Tell me more"])
            driver.advance(2 * 3_600)
        }
        driver.advance(86_400)
        let conversation = driver.call(.get, "/agents/dm/conversations/\(id)", key: key)
        let senders = conversation["messages"]?.arrayValue?.map { $0["sender"]?["name"]?.stringValue ?? "" } ?? []
        let mine = senders.filter { $0 == "walker" }.count
        #expect(mine == 4)
        let simulated = driver.call(.get, "/_sandbox/simulation")["events"]
        #expect(simulated?["dm_request"] == 6)
        #expect((simulated?["dm_answer"]?.intValue ?? 0) >= 1)
        // The request message, at most two unprompted messages per conversation, at most two answers.
        #expect(senders.count - mine <= 1 + 2 + 2)
        #expect(
            driver.call(.get, "/_sandbox/simulation")["scheduled"]?.arrayValue?.allSatisfy {
                $0["kind"] == "dm_request"
            } == true)
    }

    /// Bad simulation settings are refused by the admin config route with the key named.
    @Test func invalidSettingsAreRefused() {
        let driver = SandboxDriver.inbox()
        let answer = driver.call(.post, "/_sandbox/config", json: ["simulation": ["reply_probability": 2]])
        #expect(answer.status == 400)
        #expect(answer["hint"]?.stringValue?.contains("reply_probability must lie between 0 and 1") == true)
        let reversed = driver.call(
            .post, "/_sandbox/config",
            json: ["simulation": ["comment_delay_min_seconds": 500, "comment_delay_max_seconds": 5]])
        #expect(reversed.status == 400)
        let fine = driver.call(.post, "/_sandbox/config", json: ["simulation": ["agents": 2]])
        #expect(fine["config"]?["simulation"]?["agents"] == 2)
        #expect(fine["config"]?["simulation"]?["max_comments_per_post"] == 3)
    }
}
