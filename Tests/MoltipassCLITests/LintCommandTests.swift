import Foundation
import MoltipassTesting
import Testing

/// `moltipass lint` through the built binary, with `--from` fixed so results do not depend on the day.
struct LintCommandTests {
    static let from = "2026-01-01T00:00:00Z"

    static func moltipass(_ arguments: [String]) async throws -> ProcessRunner.Result {
        try await ValidateCommandTests.moltipass(arguments)
    }

    /// Each example recipe lints clean: exit 0, `ok FILE`, no findings.
    @Test(arguments: ValidateCommandTests.exampleRecipes()) func exampleIsClean(_ file: String) async throws {
        let result = try await Self.moltipass(["lint", "--from", "2026-11-30T00:00:00Z", file])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "ok \(file)\n")
        #expect(result.stderr.isEmpty)
    }

    /// Error-severity findings in valid recipes: exit 11 with the finding at its position, no `ok` line.
    @Test(arguments: [
        ("lint-secret.yaml", "11:20: error: ", "looks like a Moltbook API key"),
        ("lint-title-too-long.yaml", "10:18: error: ", "over Moltbook's limit of 300"),
        // 160 lobsters: 160 characters to Swift, 320 UTF-16 units to a server (issue 33, observation 11).
        ("lint-title-emoji.yaml", "10:18: error: ", "title is at least 320 characters, over Moltbook's limit of 300"),
        ("lint-comment-too-long.yaml", "10:20: error: ", "over Moltbook's limit of 10000"),
        ("lint-never-matches.yaml", "6:7: error: ", "never matches"),
        ("lint-at-in-past.yaml", "6:7: error: ", "it never runs"),
    ])
    func errorFinding(_ name: String, _ position: String, _ fragment: String) async throws {
        let file = "fixtures/recipes/bad/" + name
        let result = try await Self.moltipass(["lint", "--from", Self.from, file])
        #expect(result.status == 11)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr.split(separator: "\n").contains {
                $0.hasPrefix(file + ":" + position) && $0.contains(fragment)
            },
            "\(result.stderr)")
        // The same file is a valid recipe.
        #expect(try await Self.moltipass(["validate", file]).status == 0)
    }

    /// Warnings only: exit 0, the warning on stderr, `ok FILE (1 warning)` on stdout.
    @Test(arguments: [
        ("lint-post-rate.yaml", "6:7: warning: ", "up to 3 posts in an hour requested, the limit allows 2"),
        ("lint-comment-rate.yaml", "6:7: warning: ", "the limit allows 50"),
        ("lint-queue-dry.yaml", "10:18: warning: ", "runs dry"),
        ("lint-empty-content.yaml", "11:20: warning: ", "content is empty"),
        ("lint-repeat.yaml", "10:18: warning: ", "the post says the same every time (720 runs in the next 30d)"),
        (
            "lint-repeat-comment.yaml", "10:20: warning: ",
            "the comment says the same every time (30 runs in the next 30d)"
        ),
    ])
    func warningOnly(_ name: String, _ position: String, _ fragment: String) async throws {
        let file = "fixtures/recipes/bad/" + name
        let result = try await Self.moltipass(["lint", "--from", Self.from, file])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "ok \(file) (1 warning)\n")
        #expect(
            result.stderr.split(separator: "\n").contains {
                $0.hasPrefix(file + ":" + position) && $0.contains(fragment)
            },
            "\(result.stderr)")
    }

    /// Content shared between recipes of one agent: a comment text two recipes both publish, and
    /// a queue file both take from, are reported once each on the later recipe; another agent's
    /// recipe with the same text is not.
    @Test func sharedContentBetweenRecipes() async throws {
        let dir = "fixtures/recipes/shared/"
        let result = try await Self.moltipass([
            "lint", "--from", "2026-11-30T00:00:00Z", dir + "evening.yaml", dir + "morning.yaml",
            dir + "other-agent.yaml",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == "ok \(dir)evening.yaml\nok \(dir)morning.yaml (2 warnings)\nok \(dir)other-agent.yaml\n")
        let shared = result.stderr.split(separator: "\n").filter { $0.contains("also") }
        #expect(shared.count == 2, "\(result.stderr)")
        #expect(
            shared.contains {
                $0.hasPrefix(
                    dir + "morning.yaml:8:20: warning: \"good morning harbour 30 november\" is also published by "
                        + dir + "evening.yaml:8:20 for agent `harbor_digest`")
            }, "\(result.stderr)")
        #expect(
            shared.contains {
                $0.hasPrefix(
                    dir + "queues/drafts.yaml:1:1: warning: queue file \(dir)queues/drafts.yaml is also used by "
                        + dir + "evening.yaml")
            }, "\(result.stderr)")
        // One recipe alone shares nothing.
        let alone = try await Self.moltipass(["lint", "--from", "2026-11-30T00:00:00Z", dir + "morning.yaml"])
        #expect(alone.stdout == "ok \(dir)morning.yaml\n", "\(alone.stderr)")
    }

    /// `duplicates: window:` shortens what lint counts as a repeat (simulated over the window or
    /// the horizon, the longer): the hourly reminder with a one-day window still repeats within
    /// the day, a weekly constant post with a two-day window does not.
    @Test func duplicateWindowChangesTheRepeatCount() async throws {
        let dir = try TemporaryDirectory()
        let hourly = dir.path + "/hourly.yaml"
        try """
        agent: a
        duplicates: { window: 1d }
        jobs:
          - id: j
            schedule: { every: 1h }
            steps:
              - post: { submolt: general, title: Hourly reminder, content: "Drink water!" }
        """.write(toFile: hourly, atomically: true, encoding: .utf8)
        let weekly = dir.path + "/weekly.yaml"
        try """
        agent: a
        duplicates: { window: 2d }
        jobs:
          - id: j
            schedule: { every: 7d }
            steps:
              - post: { submolt: general, title: Weekly reminder, content: "Back up your keys." }
        """.write(toFile: weekly, atomically: true, encoding: .utf8)
        let result = try await Self.moltipass(["lint", "--from", Self.from, hourly])
        #expect(
            result.stderr.contains(
                "hourly.yaml:7:42: warning: the post says the same every time (168 runs in the next 7d): after the "
                    + "first, every copy is skipped as a duplicate within the 1d duplicate window"),
            "\(result.stderr)")
        let clean = try await Self.moltipass(["lint", "--from", Self.from, weekly])
        #expect(clean.stdout.hasSuffix("weekly.yaml\n") && clean.stderr.isEmpty, "\(clean.stderr)")
        // Without the setting, the weekly post repeats within 30 days.
        try String(contentsOfFile: weekly, encoding: .utf8).replacingOccurrences(
            of: "duplicates: { window: 2d }\n", with: ""
        )
        .write(toFile: weekly, atomically: true, encoding: .utf8)
        let warned = try await Self.moltipass(["lint", "--from", Self.from, weekly])
        #expect(warned.stderr.contains("says the same every time (5 runs in the next 30d)"), "\(warned.stderr)")
    }

    /// Lint validates first: an invalid recipe is 65 even next to a lint error, with the validation diagnostic.
    @Test func invalidBeatsFindings() async throws {
        let result = try await Self.moltipass([
            "lint", "--from", Self.from, "fixtures/recipes/bad/lint-secret.yaml",
            "fixtures/recipes/bad/duplicate-key.yaml",
        ])
        #expect(result.status == 65)
        #expect(result.stderr.contains("fixtures/recipes/bad/duplicate-key.yaml:3:1: error: duplicate key `agent`"))
        #expect(result.stderr.contains("fixtures/recipes/bad/lint-secret.yaml:11:20: error: "))
    }

    /// `--horizon`: the digest queue (8 items, one post a day) lasts a week but not 30 days.
    @Test func horizonMakesTheQueueRunDry() async throws {
        let week = try await Self.moltipass(["lint", "--from", "2026-11-30T00:00:00Z", "recipes/daily-digest.yaml"])
        #expect(week.status == 0)
        #expect(week.stderr.isEmpty)
        let month = try await Self.moltipass([
            "lint", "--from", "2026-11-30T00:00:00Z", "--horizon", "30d", "recipes/daily-digest.yaml",
        ])
        #expect(month.status == 0)
        #expect(month.stdout == "ok recipes/daily-digest.yaml (1 warning)\n")
        #expect(month.stderr.contains("runs dry"), "\(month.stderr)")
    }

    /// `--new-agent`: hourly posts are fine under the standard profile, deferred under the first-day one.
    @Test func newAgentProfile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let recipe = directory.file("hourly.yaml")
        try """
        agent: a
        jobs:
          - id: j
            schedule:
              cron: "0 * * * *"
            steps:
              - post:
                  submolt: general
                  title: "hi {{ date: yyyy-MM-dd HH:mm }}"
                  content: there

        """.write(to: recipe, atomically: true, encoding: .utf8)
        let standard = try await Self.moltipass(["lint", "--from", Self.from, recipe.path])
        #expect(standard.status == 0)
        #expect(standard.stderr.isEmpty, "\(standard.stderr)")
        let newAgent = try await Self.moltipass(["lint", "--from", Self.from, "--new-agent", recipe.path])
        #expect(newAgent.status == 0)
        #expect(newAgent.stderr.contains("\(recipe.path):5:7: warning: "), "\(newAgent.stderr)")
        #expect(newAgent.stderr.contains("(1 per 2h)"), "\(newAgent.stderr)")
    }

    /// `lint --json`: findings with severities, the settings used, and exit 11 as in text mode.
    @Test func jsonReport() async throws {
        let result = try await Self.moltipass([
            "lint", "--json", "--from", Self.from, "--horizon", "36h", "recipes/setup.yaml",
            "fixtures/recipes/bad/lint-secret.yaml", "fixtures/recipes/bad/lint-post-rate.yaml",
        ])
        #expect(result.status == 11)
        #expect(result.stderr.isEmpty)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(report["command"] as? String == "lint")
        #expect(report["exit_status"] as? Int == 11)
        #expect(report["from"] as? String == Self.from)
        #expect(report["horizon"] as? String == "1d12h")
        #expect(report["profile"] as? String == "standard")
        let files = try #require(report["files"] as? [[String: Any]])
        #expect(
            files.map { $0["file"] as? String } == [
                "recipes/setup.yaml", "fixtures/recipes/bad/lint-secret.yaml",
                "fixtures/recipes/bad/lint-post-rate.yaml",
            ])
        #expect(files.allSatisfy { $0["valid"] as? Bool == true })
        #expect(files.map { $0["errors"] as? Int } == [0, 1, 0])
        #expect(files.map { $0["warnings"] as? Int } == [0, 0, 1])
        let secret = try #require((files[1]["diagnostics"] as? [[String: Any]])?.first)
        #expect(secret["code"] as? String == "lint-secret")
        #expect(secret["severity"] as? String == "error")
        #expect(secret["line"] as? Int == 11)
        #expect(secret["column"] as? Int == 20)
        #expect(secret["expected"] as? String != nil)
        // The key itself is never echoed in full.
        #expect(!result.stdout.contains(try secretInFixture()))
    }

    /// Without `--from` the CLI reads the clock (the only place that does); a daily recipe lints clean any day.
    @Test func defaultsToNow() async throws {
        let result = try await Self.moltipass(["lint", "--json", "recipes/daily-digest.yaml"])
        #expect(result.status == 0, "\(result.stdout)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let from = try #require(report["from"] as? String)
        let instant = try #require(ISO8601DateFormatter().date(from: from))
        #expect(abs(instant.timeIntervalSinceNow) < 600)
    }

    /// Unreadable `--horizon` and `--from` values are usage errors (64) that say what was expected.
    @Test(arguments: [
        (["--horizon", "7 days"], "expected a duration"), (["--horizon", "2y"], "unknown unit"),
        (["--from", "tomorrow"], "expected ISO 8601"), (["--from", "2026-01-01"], "expected ISO 8601"),
    ])
    func usageErrors(_ options: [String], _ fragment: String) async throws {
        let result = try await Self.moltipass(["lint"] + options + ["recipes/setup.yaml"])
        #expect(result.status == 64)
        #expect(result.stderr.contains(fragment), "\(result.stderr)")
    }

    /// The raw key in the lint-secret fixture (to check it is not echoed whole).
    func secretInFixture() throws -> String {
        let text = try String(
            contentsOf: Fixtures.directory.appendingPathComponent("recipes/bad/lint-secret.yaml"), encoding: .utf8)
        let match = try #require(text.firstMatch(of: /moltbook_[A-Za-z0-9_-]+/))
        return String(match.output)
    }
}
