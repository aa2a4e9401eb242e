import Foundation
import MoltbookAPI
import MoltbookSandbox
import Testing

@Suite struct SocialTests {
    /// Upvote, upvote again (removed), downvote, upvote (changed) keep counts and actions right.
    @Test func votesToggle() {
        let driver = SandboxDriver.relaxed()
        let author = driver.agent("Author")
        let voter = driver.agent("Voter")
        let postID = driver.post(author)
        func count() -> String {
            let post = driver.call(.get, "/posts/\(postID)", key: voter)["post"]
            return "\(post?["upvotes"]?.intValue ?? -1)/\(post?["downvotes"]?.intValue ?? -1)"
        }
        let first = driver.call(.post, "/posts/\(postID)/upvote", key: voter)
        #expect(first["action"] == "upvoted")
        #expect(first["message"] == "Upvoted! 🦞")
        #expect(first["author"]?["name"] == "Author")
        #expect(first["already_following"] == false)
        #expect(count() == "1/0")
        #expect(driver.call(.post, "/posts/\(postID)/upvote", key: voter)["action"] == "removed")
        #expect(count() == "0/0")
        #expect(driver.call(.post, "/posts/\(postID)/downvote", key: voter)["action"] == "downvoted")
        #expect(count() == "0/1")
        #expect(driver.call(.post, "/posts/\(postID)/upvote", key: voter)["action"] == "changed")
        #expect(count() == "1/0")
        #expect(driver.call(.get, "/posts/\(postID)", key: voter)["post"]?["your_vote"] == "upvote")
        let counters = driver.model.counters()
        #expect(counters.votesCast == 2)
        #expect(counters.votesRemoved == 1)
        #expect(counters.votesChanged == 1)
        #expect(driver.call(.get, "/agents/me", key: author)["agent"]?["karma"] == 1)
    }

    /// Comment upvotes toggle too; voting on your own post is 400; unknown targets are 404.
    /// A post in a list shows its current counts and status: after verification, a vote, a comment, a vote removed.
    @Test func listsFollowVotesCommentsAndModeration() {
        let driver = SandboxDriver(
            config: SandboxConfig(limits: .unlimited, newAgentPeriodSeconds: 0, challengeRate: 1))
        let author = driver.agent("Author")
        let reader = driver.agent("Reader")
        let created = driver.call(
            .post, "/posts", key: author, json: ["submolt_name": "general", "title": "Listed", "content": "Body"])
        let postID = created["post"]?["id"]?.stringValue ?? ""
        func listed() -> JSON? {
            driver.call(.get, "/posts", key: reader, query: ["sort": "new", "limit": "50"])["posts"]?.arrayValue?
                .first { $0["id"]?.stringValue == postID }
        }
        // Pending verification: hidden from lists; answered: listed (the second rendering, not a cached absence).
        #expect(listed() == nil)
        let code = created["post"]?["verification"]?["verification_code"]?.stringValue ?? ""
        let answer = driver.model.expectedAnswer(forVerificationCode: code) ?? ""
        #expect(
            driver.call(
                .post, "/verify", key: author, json: ["verification_code": .string(code), "answer": .string(answer)]
            ).status == 200)
        #expect(listed()?["upvotes"]?.intValue == 0)
        #expect(listed()?["comment_count"]?.intValue == 0)
        // A vote and a comment change what the next list shows.
        driver.call(.post, "/posts/\(postID)/upvote", key: reader)
        #expect(listed()?["upvotes"]?.intValue == 1)
        #expect(listed()?["score"]?.intValue == 1)
        driver.model.configure { $0.challengeRate = 0 }
        _ = driver.comment(reader, on: postID, "Nice")
        #expect(listed()?["comment_count"]?.intValue == 1)
        driver.call(.post, "/posts/\(postID)/upvote", key: reader)
        #expect(listed()?["upvotes"]?.intValue == 0)
    }

    @Test func commentVotesAndSelfVotes() {
        let driver = SandboxDriver.relaxed()
        let author = driver.agent("Author")
        let voter = driver.agent("Voter")
        let postID = driver.post(author)
        let commentID = driver.comment(author, on: postID, "nice")
        #expect(driver.call(.post, "/comments/\(commentID)/upvote", key: voter)["action"] == "upvoted")
        #expect(driver.call(.post, "/comments/\(commentID)/upvote", key: voter)["action"] == "removed")
        #expect(driver.call(.post, "/posts/\(postID)/upvote", key: author).status == 400)
        #expect(driver.call(.post, "/comments/\(commentID)/upvote", key: author).status == 400)
        #expect(driver.call(.post, "/posts/nope/upvote", key: voter).status == 404)
    }

    /// Follow/unfollow and subscribe/unsubscribe report the documented idempotent actions.
    @Test func followAndSubscribeActions() {
        let driver = SandboxDriver.relaxed()
        let me = driver.agent("Me")
        _ = driver.agent("Them")
        #expect(driver.call(.post, "/agents/Them/follow", key: me)["action"] == "followed")
        #expect(driver.call(.post, "/agents/Them/follow", key: me)["action"] == "already_following")
        #expect(driver.call(.delete, "/agents/Them/follow", key: me)["action"] == "unfollowed")
        #expect(driver.call(.delete, "/agents/Them/follow", key: me)["action"] == "not_following")
        #expect(driver.call(.post, "/agents/Me/follow", key: me).status == 400)
        #expect(driver.call(.post, "/agents/Ghost/follow", key: me).status == 404)
        #expect(driver.call(.post, "/submolts/general/subscribe", key: me)["action"] == "subscribed")
        #expect(driver.call(.post, "/submolts/general/subscribe", key: me)["action"] == "already_subscribed")
        #expect(driver.call(.get, "/submolts/general", key: me)["submolt"]?["subscriber_count"] == 1)
        #expect(driver.call(.delete, "/submolts/general/subscribe", key: me)["action"] == "unsubscribed")
        #expect(driver.call(.delete, "/submolts/general/subscribe", key: me)["action"] == "not_subscribed")
        #expect(driver.call(.get, "/submolts/general", key: me)["submolt"]?["subscriber_count"] == 0)
    }

    /// The personal feed shows subscribed submolts and followed agents; filter=following only the latter.
    @Test func feedFilters() {
        let driver = SandboxDriver.relaxed()
        let reader = driver.agent("Reader")
        let friend = driver.agent("Friend")
        let stranger = driver.agent("Stranger")
        let friendPost = driver.post(friend, title: "friend", submolt: "agents")
        let generalPost = driver.post(stranger, title: "general", submolt: "general")
        _ = driver.post(stranger, title: "elsewhere", submolt: "introductions")
        driver.call(.post, "/agents/Friend/follow", key: reader)
        driver.call(.post, "/submolts/general/subscribe", key: reader)
        func ids(_ filter: String) -> [String] {
            let posts = driver.call(.get, "/feed", key: reader, query: ["filter": filter, "sort": "new"])["posts"]
            return posts?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        }
        #expect(ids("all") == [generalPost, friendPost])
        #expect(ids("following") == [friendPost])
        let submoltFeed = driver.call(.get, "/submolts/introductions/feed", key: reader)["posts"]?.arrayValue
        #expect(submoltFeed?.count == 1)
    }

    /// Comments nest as replies; GET /posts/ID embeds the tree; sort=new and old reverse each other.
    @Test func commentTree() {
        let driver = SandboxDriver.relaxed()
        let key = driver.agent("Talker")
        let postID = driver.post(key)
        let root = driver.comment(key, on: postID, "root")
        driver.advance(1)
        let reply = driver.comment(key, on: postID, "reply", parent: root)
        driver.advance(1)
        let second = driver.comment(key, on: postID, "second root")
        let old = driver.call(.get, "/posts/\(postID)/comments", key: key, query: ["sort": "old"])
        let roots = old["comments"]?.arrayValue ?? []
        #expect(roots.compactMap { $0["id"]?.stringValue } == [root, second])
        #expect(roots.first?["replies"]?.arrayValue?.first?["id"]?.stringValue == reply)
        let new = driver.call(.get, "/posts/\(postID)/comments", key: key, query: ["sort": "new"])
        #expect(new["comments"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [second, root])
        let detail = driver.call(.get, "/posts/\(postID)", key: key)
        #expect(detail["comments"]?.arrayValue?.count == 2)
        #expect(detail["post"]?["comment_count"] == 3)
        #expect(driver.comment(key, on: postID, "x", parent: "missing").isEmpty)
    }

    /// Deleting your own post hides it; deleting someone else's is 403.
    @Test func deletePost() {
        let driver = SandboxDriver.relaxed()
        let owner = driver.agent("Owner")
        let other = driver.agent("Other")
        let postID = driver.post(owner)
        #expect(driver.call(.delete, "/posts/\(postID)", key: other).status == 403)
        #expect(driver.call(.delete, "/posts/\(postID)", key: owner)["message"] == "Post deleted")
        #expect(driver.call(.get, "/posts/\(postID)", key: owner).status == 404)
    }

    /// Creating a submolt makes the creator owner; a taken name is 409; search finds posts by keyword.
    @Test func submoltsAndSearch() {
        let driver = SandboxDriver.relaxed()
        let key = driver.agent("Founder")
        let created = driver.call(
            .post, "/submolts", key: key, json: ["name": "deep-sea", "display_name": "Deep Sea", "description": "d"])
        #expect(created.status == 201)
        #expect(created["submolt"]?["your_role"] == "owner")
        #expect(
            driver.call(.post, "/submolts", key: key, json: ["name": "deep-sea", "display_name": "X"]).status == 409)
        #expect(
            driver.call(.post, "/submolts", key: key, json: ["name": "Bad Name", "display_name": "X"]).status == 400)
        let names = driver.call(.get, "/submolts", key: key)["submolts"]?.arrayValue?.compactMap {
            $0["name"]?.stringValue
        }
        #expect(names == ["agents", "deep-sea", "general", "introductions"])
        _ = driver.post(key, title: "Molting season notes", content: "shell talk")
        _ = driver.post(key, title: "Unrelated", content: "nothing")
        let search = driver.call(.get, "/search", key: key, query: ["q": "molting shell", "type": "posts"])
        let results = search["results"]?.arrayValue ?? []
        #expect(results.count == 1)
        #expect(results.first?["similarity"]?.doubleValue == 1)
        #expect(results.first?["type"] == "post")
        #expect(driver.call(.get, "/search", key: key).status == 400)
    }
}
