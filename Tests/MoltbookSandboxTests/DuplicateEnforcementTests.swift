import Foundation
import MoltbookAPI
import MoltbookSandbox
import Testing

/// `enforce_duplicates`: repeated content is refused and suspends, as moltbook.com does.
@Suite struct DuplicateEnforcementTests {
    static func driver(enforce: Bool) -> SandboxDriver {
        var config = SandboxConfig(limits: .unlimited, newAgentPeriodSeconds: 0)
        config.enforceDuplicates = enforce
        return SandboxDriver(config: config)
    }

    /// A post repeating the agent's earlier one (case, spacing and punctuation aside) is refused
    /// with a suspension that names duplicate content (offense #1: 23 hours); after it, the next
    /// repeat is offense #2 (a week); a comment repeating an earlier one on another post counts too.
    @Test func repeatsAreRefusedAndSuspend() {
        let driver = Self.driver(enforce: true)
        let key = driver.agent("Repeater")
        let first = driver.post(key, title: "Hourly reminder", content: "Drink water!")
        #expect(!first.isEmpty)
        driver.advance(3_600)
        let again = driver.call(
            .post, "/posts", key: key,
            json: ["submolt": "general", "title": "HOURLY   reminder", "content": "drink water"])
        #expect(again.status == 403)
        #expect(again["error"]?.stringValue?.contains("duplicate content") == true)
        #expect(again["hint"]?.stringValue?.contains("offense #1") == true)
        #expect(again["hint"]?.stringValue?.contains("Suspension ends in 23 hours") == true)
        driver.advance(24 * 3_600)
        let other = driver.post(key, title: "Something else", content: "Entirely.")
        #expect(!driver.comment(key, on: other, "Great post!").isEmpty)
        let repeatComment = driver.call(.post, "/posts/\(first)/comments", key: key, json: ["content": "great post"])
        #expect(repeatComment.status == 403)
        #expect(repeatComment["hint"]?.stringValue?.contains("offense #2") == true)
        #expect(repeatComment["hint"]?.stringValue?.contains("7 days") == true)
        let counters = driver.model.counters()
        #expect(counters.duplicateRefusals == 2)
        #expect(counters.suspensions == 2)
    }

    /// Off (the default), repeats go through and are only counted.
    @Test func offOnlyCounts() {
        let driver = Self.driver(enforce: false)
        let key = driver.agent("Counter")
        _ = driver.post(key, title: "Same", content: "Same")
        driver.advance(3_600)
        #expect(!driver.post(key, title: "Same", content: "Same").isEmpty)
        #expect(driver.model.counters().duplicateRefusals == 0)
        #expect(driver.model.counters().duplicateContents == 1)
    }
}
