import Foundation
import MoltbookAPI
import MoltbookSandbox
import Testing

@Suite struct ModelTests {
    /// Counters track requests by class, creations and duplicate posts/comments by the same agent.
    @Test func countersAndDuplicates() throws {
        let driver = SandboxDriver.relaxed()
        let key = driver.agent("Repeater")
        let postID = driver.post(key, title: "Same", content: "same body")
        _ = driver.post(key, title: "Same", content: "same body")
        _ = driver.post(key, title: "Same", content: "other body")
        _ = driver.comment(key, on: postID, "echo")
        _ = driver.comment(key, on: postID, "echo")
        let first = driver.comment(key, on: postID, "reply")
        _ = driver.comment(key, on: postID, "echo", parent: first)
        let other = driver.agent("Other")
        _ = driver.post(other, title: "Same", content: "same body")
        driver.call(.get, "/feed", key: key)
        let counters = driver.model.counters()
        #expect(counters.duplicateContents == 2)
        #expect(counters.postsCreated == 4)
        #expect(counters.commentsCreated == 4)
        #expect(counters.requestsTotal == 11)
        #expect(counters.reads == 1)
        #expect(counters.writes == 10)
        #expect(counters.requestsByAgent["Repeater"] == 8)
        let served = driver.call(.get, "/_sandbox/counters")
        #expect(served["success"] == true)
        #expect(served["duplicate_contents"] == 2)
        #expect(served["posts_created"] == 4)
        let decoded = try JSONDecoder().decode(SandboxCounters.self, from: served.body)
        #expect(decoded == counters)
    }

    /// The same seed and request sequence give byte-identical responses; another seed gives different ids.
    @Test func determinism() {
        func transcript(seed: UInt64) -> [Data] {
            let driver = SandboxDriver(config: SandboxConfig(challengeRate: 0.5), seed: seed)
            var bodies: [Data] = []
            let register = driver.call(.post, "/agents/register", json: ["name": "Det", "description": "d"])
            bodies.append(register.body)
            driver.model.claim(agentNamed: "Det")
            let key = register["agent"]?["api_key"]?.stringValue ?? ""
            for index in 0..<4 {
                let post = driver.call(
                    .post, "/posts", key: key, json: ["submolt": "general", "title": .string("p\(index)")])
                bodies.append(post.body)
                bodies.append(driver.call(.get, "/posts", key: key, query: ["sort": "new"]).body)
                driver.advance(7200)
            }
            bodies.append(driver.call(.get, "/_sandbox/counters").body)
            return bodies
        }
        let first = transcript(seed: 9)
        #expect(first == transcript(seed: 9))
        #expect(first != transcript(seed: 10))
    }

    /// Cursors walk every post exactly once, newest first, and reject garbage.
    @Test func pagination() throws {
        let driver = SandboxDriver.relaxed()
        let key = driver.agent("Pager")
        var created: [String] = []
        for index in 0..<7 {
            created.append(driver.post(key, title: "post \(index)"))
            driver.advance(1)
        }
        var seen: [String] = []
        var cursor: String?
        repeat {
            var query = ["sort": "new", "limit": "3"]
            query["cursor"] = cursor
            let page = driver.call(.get, "/posts", key: key, query: query)
            seen += page["posts"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            cursor = page["next_cursor"]?.stringValue
            #expect(page["has_more"] == .bool(cursor != nil))
            // A post created between pages must not shift the next page.
            if seen.count == 3 { _ = driver.post(key, title: "late") }
        } while cursor != nil
        #expect(seen == created.reversed())
        #expect(driver.call(.get, "/posts", key: key, query: ["cursor": "%%%"]).status == 400)
        #expect(driver.call(.get, "/posts", key: key, query: ["sort": "sideways"]).status == 400)
        let limited = driver.call(.get, "/posts", key: key, query: ["limit": "1000"])
        #expect(limited["posts"]?.arrayValue?.count == 8)
    }

    /// POST /_sandbox/config updates only the named keys; reset forgets agents but keeps the config.
    @Test func adminConfigAndReset() {
        let driver = SandboxDriver()
        let answer = driver.call(
            .post, "/_sandbox/config", json: ["challenge_rate": 1, "limits": ["post_cooldown_seconds": 60]])
        #expect(answer.status == 200)
        #expect(driver.model.config.challengeRate == 1)
        #expect(driver.model.config.limits.postCooldownSeconds == 60)
        #expect(driver.model.config.limits.commentCooldownSeconds == 20)
        #expect(driver.call(.post, "/_sandbox/config", json: ["limits": ["post_cooldown_seconds": nil]]).status == 200)
        #expect(driver.model.config.limits.postCooldownSeconds == nil)
        #expect(driver.call(.post, "/_sandbox/config", json: ["challenge_rate": "lots"]).status == 400)
        let key = driver.agent("Forgotten")
        #expect(driver.call(.post, "/_sandbox/reset").status == 200)
        #expect(driver.call(.get, "/agents/me", key: key).status == 401)
        #expect(driver.model.config.challengeRate == 1)
        #expect(driver.model.counters().requestsTotal == 1)
    }

    /// Timestamps use microseconds and a +00:00 offset.
    @Test func timestampFormat() {
        let date = Date(timeIntervalSince1970: 1_769_755_575.074832)
        #expect(SandboxTime.iso(date) == "2026-01-30T06:46:15.074832+00:00")
        #expect(
            SandboxTime.parse("2026-01-30T06:46:15.074832+00:00").map { abs($0.timeIntervalSince(date)) < 0.001 }
                == true)
        #expect(SandboxTime.parse("2026-06-22 21:42:16+00:00") != nil)
    }
}
