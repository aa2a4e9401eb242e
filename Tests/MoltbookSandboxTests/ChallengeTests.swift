import Foundation
import MoltbookAPI
import MoltbookSandbox
import Testing

@Suite struct ChallengeTests {
    static func driver(threshold: Int = 10) -> SandboxDriver {
        SandboxDriver(
            config: SandboxConfig(
                limits: .unlimited, newAgentPeriodSeconds: 0, challengeRate: 1, suspensionThreshold: threshold))
    }

    /// A challenged post comes back pending with a verification object and stays out of the feed.
    @Test func postChallengeIsIssuedAndHidden() throws {
        let driver = Self.driver()
        let key = driver.agent("Solver")
        let created = driver.call(
            .post, "/posts", key: key, json: ["submolt": "general", "title": "t", "content": "c"])
        #expect(created.status == 201)
        let post = try #require(created["post"])
        #expect(post["verification_status"] == "pending")
        let verification = try #require(post["verification"])
        #expect(verification["verification_code"]?.stringValue?.hasPrefix("moltbook_verify_") == true)
        #expect(verification["challenge_text"]?.stringValue?.isEmpty == false)
        #expect(verification["instructions"]?.stringValue?.contains("2 decimal places") == true)
        #expect(verification["expires_at"] == .string(SandboxTime.iso(driver.now.addingTimeInterval(300))))
        #expect(created["message"]?.stringValue?.contains("verification") == true)
        #expect(driver.call(.get, "/posts", key: key)["posts"]?.arrayValue?.isEmpty == true)
        #expect(driver.model.counters().challengesIssued == 1)
    }

    /// A right answer in any numeric form publishes the content; a second attempt is 409.
    @Test func rightAnswerPublishes() throws {
        let driver = Self.driver()
        let key = driver.agent("Solver")
        let created = driver.call(.post, "/posts", key: key, json: ["submolt": "general", "title": "t"])
        let code = try #require(created["post"]?["verification"]?["verification_code"]?.stringValue)
        let answer = try #require(driver.model.expectedAnswer(forVerificationCode: code))
        let trimmed = String(answer.hasSuffix(".00") ? answer.dropLast(3) : Substring(answer))
        let ok = driver.call(
            .post, "/verify", key: key, json: ["verification_code": .string(code), "answer": .string(trimmed)])
        #expect(ok.status == 200)
        #expect(ok["message"] == "Verification successful! Your post is now published.")
        #expect(ok["content_type"] == "post")
        #expect(ok["content_id"] == created["post"]?["id"])
        #expect(driver.call(.get, "/posts", key: key)["posts"]?.arrayValue?.count == 1)
        let again = driver.call(
            .post, "/verify", key: key, json: ["verification_code": .string(code), "answer": .string(answer)])
        #expect(again.status == 409)
        #expect(again["error"] == "Already answered")
        #expect(driver.model.counters().challengesVerified == 1)
    }

    /// A wrong answer is 400 "Incorrect answer" with the 2-decimals hint; the comment stays hidden.
    @Test func wrongAnswerFails() throws {
        let driver = Self.driver()
        let key = driver.agent("Solver")
        driver.model.configure { $0.challengeRate = 0 }
        let postID = driver.post(key)
        driver.model.configure { $0.challengeRate = 1 }
        let created = driver.call(.post, "/posts/\(postID)/comments", key: key, json: ["content": "hm"])
        #expect(created["comment"]?["verificationStatus"] == "pending")
        let code = try #require(created["comment"]?["verification"]?["verification_code"]?.stringValue)
        let wrong = driver.call(
            .post, "/verify", key: key, json: ["verification_code": .string(code), "answer": "-1.00"])
        #expect(wrong.status == 400)
        #expect(wrong["error"] == "Incorrect answer")
        #expect(wrong["hint"] == "answers must be to 2 decimal places")
        #expect(wrong["content_type"] == "comment")
        #expect(driver.call(.get, "/posts/\(postID)/comments", key: key)["comments"]?.arrayValue?.isEmpty == true)
        let again = driver.call(.post, "/verify", key: key, json: ["verification_code": .string(code), "answer": "1"])
        #expect(again.status == 409)
        #expect(driver.model.counters().challengesFailed == 1)
    }

    /// Past 5 minutes the code is 410; an unknown code (or another agent's) is 404.
    @Test func expiredAndUnknownCodes() throws {
        let driver = Self.driver()
        let key = driver.agent("Slow")
        let other = driver.agent("Other")
        let created = driver.call(.post, "/posts", key: key, json: ["submolt": "general", "title": "t"])
        let code = try #require(created["post"]?["verification"]?["verification_code"]?.stringValue)
        let answer = try #require(driver.model.expectedAnswer(forVerificationCode: code))
        let foreign = driver.call(
            .post, "/verify", key: other, json: ["verification_code": .string(code), "answer": .string(answer)])
        #expect(foreign.status == 404)
        driver.advance(301)
        let late = driver.call(
            .post, "/verify", key: key, json: ["verification_code": .string(code), "answer": .string(answer)])
        #expect(late.status == 410)
        #expect(driver.model.counters().challengesExpired == 1)
        let unknown = driver.call(
            .post, "/verify", key: key, json: ["verification_code": .string("moltbook_verify_00"), "answer": "1"])
        #expect(unknown.status == 404)
    }

    /// Submolt challenges expire after 30 seconds.
    @Test func submoltChallengeWindow() {
        let driver = Self.driver()
        let key = driver.agent("Founder")
        let created = driver.call(.post, "/submolts", key: key, json: ["name": "quick", "display_name": "Quick"])
        let expires = created["submolt"]?["verification"]?["expires_at"]
        #expect(expires == .string(SandboxTime.iso(driver.now.addingTimeInterval(30))))
    }

    /// N failed challenges in a row (wrong or expired) suspend the agent: writes get the documented 403, reads work.
    @Test func suspensionAfterFailures() throws {
        let driver = Self.driver(threshold: 3)
        let key = driver.agent("Careless")
        let postID = driver.post(key)  // pending, its challenge will expire
        for index in 0..<2 {
            let created = driver.call(.post, "/posts", key: key, json: ["submolt": "general", "title": "t\(index)"])
            let code = try #require(created["post"]?["verification"]?["verification_code"]?.stringValue)
            driver.call(.post, "/verify", key: key, json: ["verification_code": .string(code), "answer": "-7"])
        }
        #expect(driver.model.counters().suspensions == 0)
        driver.advance(301)  // the first challenge expires: third failure in a row
        #expect(driver.call(.get, "/agents/me", key: key).status == 200)
        #expect(driver.model.counters().suspensions == 1)
        driver.advance(3600 - 301)
        let blocked = driver.call(.post, "/posts", key: key, json: ["submolt": "general", "title": "x"])
        #expect(blocked.status == 403)
        #expect(blocked["error"] == "Your account has been suspended for repeatedly failing AI verification challenges")
        #expect(
            blocked["hint"] == "Failing to answer AI verification challenge (offense #1). Suspension ends in 23 hours.")
        #expect(driver.call(.get, "/posts/\(postID)", key: key).status == 200)
        driver.advance(23 * 3600 + 300)
        #expect(driver.call(.post, "/posts", key: key, json: ["submolt": "general", "title": "x"]).status == 201)
        #expect(driver.model.counters().suspendedRequests == 1)
    }

    /// A success between failures resets the streak: no suspension.
    @Test func successBreaksTheStreak() throws {
        let driver = Self.driver(threshold: 2)
        let key = driver.agent("Mixed")
        for answerRight in [false, true, false] {
            let created = driver.call(.post, "/posts", key: key, json: ["submolt": "general", "title": "t"])
            let code = try #require(created["post"]?["verification"]?["verification_code"]?.stringValue)
            let right = try #require(driver.model.expectedAnswer(forVerificationCode: code))
            driver.call(
                .post, "/verify", key: key,
                json: ["verification_code": .string(code), "answer": .string(answerRight ? right : "99999")])
        }
        #expect(driver.model.counters().suspensions == 0)
        #expect(driver.call(.post, "/posts", key: key, json: ["submolt": "general", "title": "t"]).status == 201)
    }
}
