import Foundation
import Testing

@testable import Recipes

/// What `lint` says about reply and dm steps.
struct AnswerLintTests {
    func findings(_ schedule: String, _ step: String, horizon: Int = 86_400) throws -> [String] {
        let text = "agent: a\njobs:\n  - id: j\n    schedule: \(schedule)\n    steps:\n      - \(step)\n"
        let recipe = try RecipeLoader.load(bytes: Array(text.utf8), file: "/r/test.yaml") { _ in nil }.get()
        return Linter.lint(recipe, options: LintOptions(from: instant("2026-12-01T00:00:00Z"), horizon: horizon))
            .map { "\($0.line):\($0.column) \($0.severity) \($0.code) \($0.message)" }
    }

    static let named = "reply: { content: \"Thanks, {{ trigger.author }}\" }"

    /// A heartbeat answering with a text that names the trigger is clean.
    @Test func cleanHeartbeat() throws {
        #expect(try findings("{ heartbeat: 30m }", Self.named) == [])
        #expect(try findings("{ heartbeat: 5m }", "dm: { content: \"Hi {{ trigger.author }}\" }") == [])
    }

    /// A job that answers more often than every 5 minutes is warned about at its schedule.
    @Test func fastInbox() throws {
        let every = try findings("{ every: 1m }", Self.named)
        #expect(every.count == 1)
        #expect(
            every.first?.hasPrefix("4:15 warning lint-inbox job `j` answers inbound items and runs every 1m") == true)
        let cron = try findings("{ cron: \"*/2 * * * *\" }", "dm: { content: \"Hi {{ trigger.author }}\" }")
        #expect(cron.map { String($0.prefix(26)) } == ["4:15 warning lint-inbox jo"])
        #expect(try findings("{ every: 1m }", "follow: x") == [])
    }

    /// The same text for everyone is a warning at the text; a daily cap above the comment limit
    /// is one at the step.
    @Test func repeatsAndCaps() throws {
        let same = try findings("{ heartbeat: 30m }", "reply: { content: \"Thanks!\" }")
        #expect(same.count == 1)
        #expect(same.first?.hasPrefix("6:27 warning lint-repeat the reply says the same to everyone") == true)
        let dm = try findings("{ heartbeat: 30m }", "dm: { content: \"On holiday until {{ date }}.\" }")
        #expect(dm.first?.hasPrefix("6:24 warning lint-repeat the direct message says the same") == true)
        let capped = try findings(
            "{ heartbeat: 30m }", "reply: { content: \"Hi {{ trigger.author }}\", max_per_day: 80 }")
        #expect(
            capped == [
                "6:9 warning lint-rate the reply step may answer 80 comments a day (max_per_day), "
                    + "the limit allows 50: the rest wait, and may age out (max_age)"
            ])
    }

    /// Size limits: a reply as a comment (10,000), a direct message at 1,000.
    @Test func sizes() throws {
        let long = String(repeating: "x", count: 1_001)
        let dm = try findings("{ heartbeat: 30m }", "dm: { content: \"{{ trigger.author }} \(long)\" }")
        #expect(dm.contains { $0.hasPrefix("6:24 error lint-size direct message is at least 1002 characters") })
        let reply = try findings("{ heartbeat: 30m }", "reply: { content: \"{{ trigger.author }} \(long)\" }")
        #expect(reply == [])
    }

    /// `lint`'s cross-recipe check takes reply and dm steps without complaint.
    @Test func sharedContentIgnoresAnswers() throws {
        let text = "agent: a\njobs:\n  - id: j\n    schedule: { heartbeat: 30m }\n    steps:\n      - \(Self.named)\n"
        let one = try RecipeLoader.load(bytes: Array(text.utf8), file: "/r/one.yaml") { _ in nil }.get()
        let two = try RecipeLoader.load(bytes: Array(text.utf8), file: "/r/two.yaml") { _ in nil }.get()
        #expect(Linter.sharedContent([one, two], options: LintOptions(from: instant("2026-12-01T00:00:00Z"))).isEmpty)
    }
}
