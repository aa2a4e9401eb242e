import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// `--log-format` and `--log-level` of `moltipass run`, through the real binary against a
/// `moltbook-sandbox` process: the JSON field names of docs/deploy.md, "Logs".
@Suite("run logs")
struct LogFormatTests {
    /// Every non-empty line of `text` as a JSON object; a line that does not parse fails the test.
    static func objects(_ text: String) -> [[String: JSONValue]] {
        text.split(separator: "\n").compactMap { line -> [String: JSONValue]? in
            let object = try? JSONValue.parse(Data(line.utf8)).object
            #expect(object != nil, "not a JSON object: \(line)")
            return object
        }
    }

    /// The base fields every line has: time (RFC 3339 UTC, milliseconds), level, message, logger.
    static func expectBaseFields(_ line: [String: JSONValue]) {
        let time = line["time"]?.string ?? ""
        #expect(time.hasSuffix("Z") && time.contains(".") && time.count == 24, "time: \(time)")
        #expect(["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(line["level"]?.string))
        #expect(line["message"]?.string?.isEmpty == false)
        #expect(line["logger"]?.string == "moltipass")
    }

    /// `run --once --log-format json --log-level info`: every stderr line is JSON; the post is
    /// one `event=action` line with agent, recipe, job, step (a number), action, outcome and
    /// request_id (the journal's idempotency key); the last line is `event=run` with the counts,
    /// the outcome and the exit status (`--detailed-exitcode`'s for the deferred run). A deferred
    /// run logs `next_allowed`. No line carries the key.
    @Test func onceWritesJSONLines() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("log_poster")
        try fixture.queue(count: 3)
        let recipe = try fixture.postingRecipe("log_poster")
        let json = ["--once", "--log-format", "json", "--log-level", "info"]

        let done = try await fixture.run([recipe] + json, at: RunFixture.t0)
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stdout.isEmpty)
        let lines = Self.objects(done.stderr)
        for line in lines { Self.expectBaseFields(line) }
        let posted = try #require(lines.first { $0["event"]?.string == "action" && $0["outcome"]?.string == "done" })
        #expect(posted["level"]?.string == "info")
        #expect(posted["agent"]?.string == "log_poster")
        #expect(posted["recipe"]?.string == "run")
        #expect(posted["job"]?.string == "posts")
        #expect(posted["step"] == .number(0), "step is a JSON number")
        #expect(posted["action"]?.string?.hasPrefix("post to m/general") == true)
        let keys = try await ProcessRunner.runSystem(
            "/usr/bin/sqlite3", [fixture.statePath, "SELECT key FROM journal;"])
        #expect(posted["request_id"]?.string == keys.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let closing = try #require(lines.last)
        #expect(closing["event"]?.string == "run")
        #expect(closing["exit_status"] == .number(0))
        #expect(closing["outcome"]?.string == "done")
        #expect(closing["done"] == .number(1))
        #expect(closing["message"]?.string?.hasPrefix("moltipass: 1 done") == true)

        // A new agent may post once per 2 h: the 10:30 occurrence is deferred until 12:00.
        let deferred = try await fixture.run([recipe] + json, at: RunFixture.t0.addingTimeInterval(1_805))
        #expect(deferred.status == 4, "\(deferred.stderr)")
        let later = Self.objects(deferred.stderr)
        let waiting = try #require(later.first { $0["outcome"]?.string == "deferred" })
        let nextAllowed = try #require(waiting["next_allowed"]?.string)
        let until = try #require(ISO8601DateFormatter().date(from: nextAllowed))
        #expect(until > RunFixture.t0.addingTimeInterval(1_805))
        #expect(waiting["request_id"]?.string?.count == 32)
        #expect(waiting["request_id"] != posted["request_id"])
        #expect(later.last?["exit_status"] == .number(4))
        #expect(later.last?["outcome"]?.string == "deferred")
        for output in [done.stderr, deferred.stderr] { #expect(!output.contains("moltbook_sk_")) }
        fixture.home.expectNoLeak(of: [])
    }

    /// Text format: `level message key=value` lines and the plain summary; `--log-level error`
    /// drops the info lines, and the summary of a run where nothing failed (quiet on success);
    /// `--log-level warn` is `warning`; an unknown level is refused with the accepted values.
    @Test func textFormatAndLevel() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("text_poster")
        try fixture.queue(count: 3)
        let recipe = try fixture.postingRecipe("text_poster")

        let info = try await fixture.run(
            [recipe, "--once", "--log-format", "text", "--log-level", "info"], at: RunFixture.t0)
        #expect(info.status == 0, "\(info.stderr)")
        let lines = info.stderr.split(separator: "\n").map(String.init)
        let action = try #require(lines.first { $0.hasPrefix("info done: post to m/general") })
        #expect(action.contains(" agent=text_poster"))
        #expect(action.contains(" event=action"))
        #expect(action.contains(" step=0"))
        #expect(lines.last?.hasPrefix("moltipass: 1 done") == true)
        #expect(!info.stderr.contains("{\""))

        let quiet = try await fixture.run(
            [recipe, "--once", "--log-format", "text", "--log-level", "error"],
            at: RunFixture.t0.addingTimeInterval(5))
        #expect(quiet.status == 3, "\(quiet.stderr)")
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")

        let warn = try await fixture.run(
            [recipe, "--once", "--log-format", "text", "--log-level", "warn"], at: RunFixture.t0.addingTimeInterval(10))
        #expect(warn.status == 3, "\(warn.stderr)")
        #expect(warn.stderr.isEmpty, "\(warn.stderr)")

        let wrong = try await fixture.run([recipe, "--once", "--log-format", "xml"], at: RunFixture.t0)
        #expect(wrong.status == 64)
        let level = try await fixture.run([recipe, "--once", "--log-level", "loud"], at: RunFixture.t0)
        #expect(level.status == 64)
        for name in ["trace", "debug", "info", "notice", "warning", "error", "critical"] {
            #expect(level.stderr.contains(name), "\(level.stderr)")
        }
        #expect(level.stderr.contains("`loud`"), "\(level.stderr)")
    }

    /// The daemon logs JSON on stdout: started, the post as an action line with step and
    /// request_id, stopped. A deferral (a second post held back by the 2 h cooldown of a new
    /// agent) is logged once, not again on the next pass (a SIGHUP reload forces that pass);
    /// `--log-level debug` adds the `sleeping` lines.
    @Test func daemonWritesJSONLinesAndLogsADeferralOnce() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("log_daemon")
        try fixture.queue(count: 3)
        let recipe = try fixture.postingRecipe(
            "log_daemon",
            extraJobs: """
                  - id: more
                    schedule: { every: 30m }
                    steps:
                      - post: { submolt: general, title: "Second", content: "Held back by the cooldown." }
                """)
        let at = RunFixture.t0
        try await fixture.setClock(at)
        let daemon = try ChildProcess(
            "moltipass",
            [
                "run", recipe, "--state", fixture.statePath, "--now", RunFixture.iso(at), "--log-format", "json",
                "--log-level", "debug",
            ],
            environment: fixture.home.environment, directory: fixture.home.directory.url)
        func count(_ message: String) -> Int {
            daemon.stdout.split(separator: "\n").filter { $0.contains("\"message\":\"\(message)\"") }.count
        }
        let deadline = Date().addingTimeInterval(30)
        while count("sleeping") < 1, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        daemon.send(SIGHUP)
        while count("sleeping") < 2, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(count("recipes reloaded") == 1, "\(daemon.stdout)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: 10) == 0, "\(daemon.stderr)")

        let lines = Self.objects(daemon.stdout)
        for line in lines { Self.expectBaseFields(line) }
        #expect(lines.first?["message"]?.string == "daemon started")
        #expect(lines.last?["message"]?.string == "daemon stopped")
        #expect(count("sleeping") == 2)
        let actions = lines.filter { $0["event"]?.string == "action" }
        let done = try #require(actions.first { $0["outcome"]?.string == "done" })
        #expect(done["step"] == .number(0))
        #expect(done["request_id"]?.string?.count == 32)
        let deferrals = actions.filter { $0["outcome"]?.string == "deferred" }
        #expect(deferrals.count == 1, "\(daemon.stdout)")
        // Which of the two jobs goes first is the engine's order; the other one waits.
        #expect(Set([done["job"]?.string, deferrals.first?["job"]?.string]) == ["posts", "more"])
        #expect(deferrals.first?["next_allowed"]?.string != nil)
        #expect(deferrals.first?["step"] == .number(0))
        #expect(deferrals.first?["request_id"]?.string?.count == 32)
        #expect(deferrals.first?["request_id"] != done["request_id"])
        #expect(!daemon.stdout.contains("moltbook_sk_"))
        #expect(daemon.stderr.isEmpty, "\(daemon.stderr)")
    }
}
