import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// Issue 21's second acceptance point, through the real binaries: one `moltipass` daemon and a
/// `moltbook-sandbox --openai` process on clocks scaled ×600 (an hour in six seconds), for about
/// six simulated hours, with one recipe whose generators misbehave in every way the issue names:
/// a program that hangs and ignores SIGTERM, one that hangs with a grandchild, one that crashes,
/// one that prints 10 MB, one that prints nothing, and model servers that return a key-shaped
/// string, answer 500, or answer too late. Beside them a queue of posts and a healthy program
/// writing comments.
///
/// Each bad occurrence is reported with its plain reason (failed, or skipped after the
/// regenerations), the daemon stays up and stops with 0, the healthy jobs keep their schedule
/// (one slow generator at a time: `GenerationService` runs two generations at once per process,
/// so a second hanging generator would hold the healthy one up until a timeout; the schedule
/// below never has two slow ones running when a healthy one is due), the killed programs leave
/// no process behind, and the key-shaped string reaches neither Moltbook, the state nor a log.
///
/// The model's string is `moltbook_sk_` and 32 hex digits, and `scripts/test` fails on any such
/// string in the test output: nothing here prints a log or a body that could hold it unredacted.
///
/// Pinned to the moltbook.com dialect (the dialect matrix runs the engine's own tests again;
/// this one is about the generators).
@Suite("Bad generators: a simulated day", .serialized)
struct BadGeneratorDayTests {
    /// 2026-01-01T00:00:00Z.
    static let start = Date(timeIntervalSince1970: 1_767_225_600)
    static let scale = 600.0
    /// Wall time the daemon runs: six simulated hours and a quarter, so that it is stopped while
    /// `stubborn`'s 6:05 run hangs (6:05–6:45).
    static let wall = 37.5

    static func generator(_ name: String) -> String {
        Fixtures.directory.appendingPathComponent("generators/\(name)").path
    }

    struct Day {
        let fixture: RunFixture
        let recipe: String
        let log: String
        let stubbornPID: String
        let grandchildPID: String
    }

    /// The sandbox with its OpenAI fake, a writer registered three days early, a host post to
    /// comment on, a queue, and the recipe. Slow generators (minutes are simulated; a 2 s
    /// timeout is 20 of them, plus 20 for the 2 s before SIGKILL):
    ///
    /// | job | generator | every | from | holds a slot |
    /// |---|---|---|---|---|
    /// | `stubborn` | hang-ignoring-term.sh, timeout 2s | 2h | 0:05 | 0:05–0:45 |
    /// | `server-error` | model `fail-500`, timeout 2s | 2h | 0:50 | 0:50–1:00 |
    /// | `grandchild` | hang.sh, timeout 2s | 2h | 1:05 | 1:05–1:25 |
    /// | `slow-model` | model `slow-30`, timeout 2s | 2h | 1:35 | 1:35–1:55 |
    ///
    /// and fast ones (`crashes` fail.sh, `floods` flood.sh, `silent` silent.sh hourly from 0:20,
    /// `leaks` model `secret` every 3 h from 0:20). Healthy: `queue-posts` hourly from 0:00,
    /// `good-comments` (counting.sh) every 30 minutes from 0:10. Model calls stay under the
    /// fake's server budget of 20 a minute (about 15 in all).
    static func setUp() async throws -> Day {
        let fixture = try await RunFixture.start(
            sandboxArguments: ["--now", RunFixture.iso(start), "--time-scale", String(Int(scale)), "--openai"],
            dialect: .moltbookCom)
        try await fixture.setClock(start.addingTimeInterval(-3 * 86_400))
        try await fixture.agent("bad_gen_writer")
        let hostKey = APIKey(try await registerOnSandbox(fixture.sandbox, "bad_gen_host"))
        try await claimOnSandbox(fixture.sandbox, "bad_gen_host")
        try await fixture.setClock(start.addingTimeInterval(-2 * 86_400))
        let target = try await fixture.rawPost(
            key: hostKey, submolt: "general", title: "Open thread", content: "Say anything.")
        try fixture.queue(count: 30)
        let home = fixture.home.path
        let log = home + "/counting.log"
        let stubbornPID = home + "/stubborn.pid"
        let grandchildPID = home + "/grandchild.pid"
        let openAI = GenerationDayTests.openAIBase(fixture) + "/v1"
        func job(_ id: String, every: String, from: String, _ step: [String]) -> String {
            (["  - id: \(id)", "    schedule: { every: \(every), start: 2026-01-01T\(from):00Z }", "    steps:"]
                + step.map { "      " + $0 }).joined(separator: "\n")
        }
        func command(_ id: String, every: String, from: String, _ arguments: [String], timeout: String? = nil)
            -> String
        {
            job(
                id, every: every, from: from,
                [
                    "- post:", "    submolt: general", "    generate:",
                    "      command: [\(arguments.joined(separator: ", "))]",
                ] + (timeout.map { ["      timeout: \($0)"] } ?? []))
        }
        func model(_ id: String, every: String, from: String, _ name: String, timeout: String? = nil) -> String {
            job(
                id, every: every, from: from,
                [
                    "- comment:", "    post: \(target)", "    generate:", "      openai:",
                    "        base_url: \(openAI)", "        model: \(name)",
                    "        prompt: \"Answer {{ post.title }} at {{ date: HH:mm }}.\"",
                ] + (timeout.map { ["      timeout: \($0)"] } ?? []))
        }
        let jobs = [
            job("queue-posts", every: "1h", from: "00:00", ["- post: { submolt: general, queue: queue.yaml }"]),
            job(
                "good-comments", every: "30m", from: "00:10",
                [
                    "- comment:", "    post: \(target)", "    generate:",
                    "      command: [\(generator("counting.sh")), \(log)]",
                ]),
            command(
                "stubborn", every: "2h", from: "00:05", [generator("hang-ignoring-term.sh"), stubbornPID], timeout: "2s"
            ),
            command("grandchild", every: "2h", from: "01:05", [generator("hang.sh"), grandchildPID], timeout: "2s"),
            command("crashes", every: "1h", from: "00:20", [generator("fail.sh")]),
            command("floods", every: "1h", from: "00:20", [generator("flood.sh")]),
            command("silent", every: "1h", from: "00:20", [generator("silent.sh")]),
            model("leaks", every: "3h", from: "00:20", "secret"),
            model("server-error", every: "2h", from: "00:50", "fail-500", timeout: "2s"),
            model("slow-model", every: "2h", from: "01:35", "slow-30", timeout: "2s"),
        ]
        let recipe = try fixture.file(
            "bad.yaml",
            """
            agent: bad_gen_writer
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
            \(jobs.joined(separator: "\n"))
            """)
        try await fixture.setClock(start)
        return Day(fixture: fixture, recipe: recipe, log: log, stubbornPID: stubbornPID, grandchildPID: grandchildPID)
    }

    @Test(.pinsItsDialect) func badGeneratorsCostOnlyTheirOwnOccurrences() async throws {
        let day = try await Self.setUp()
        defer { Task { [fixture = day.fixture] in await fixture.stop() } }
        let fixture = day.fixture
        let daemon = try ChildProcess(
            "moltipass",
            [
                "run", day.recipe, "--state", fixture.statePath, "--now", RunFixture.iso(Self.start), "--time-scale",
                String(Int(Self.scale)), "--log-format", "json",
            ],
            environment: fixture.home.environment, directory: fixture.home.directory.url)

        // Every pid the hanging programs write, with when it was first seen.
        var seen: [Int32: (file: String, at: Date)] = [:]
        let stop = Date().addingTimeInterval(Self.wall)
        while Date() < stop {
            try await Task.sleep(for: .milliseconds(100))
            for file in [day.stubbornPID, day.grandchildPID] {
                if let pid = Self.pid(in: file), seen[pid] == nil { seen[pid] = (file, Date()) }
            }
        }
        let clock = try await fixture.admin(.get, "clock")
        let end = try #require(clock["now"]?.string.flatMap(SandboxTime.parse))
        #expect(daemon.isRunning, "the daemon stopped: \(Self.redacted(daemon.stderr))")
        let health = try await fixture.home.run([
            "status", day.recipe, "--state", fixture.statePath, "--health", "--json", "--now", RunFixture.iso(end),
            // At x600 a loaded machine's few seconds are half an hour: ticks are not what this is about.
            "--max-tick-age", "1d",
        ])
        // A hung program is killed 2 s after its timeout (SIGKILL after SIGTERM): one seen more
        // than 5 s ago is gone, the grandchild of hang.sh with it.
        let killed = seen.filter { Date().timeIntervalSince($0.value.at) > 5 }
        #expect(killed.contains { $0.value.file == day.stubbornPID }, "hang-ignoring-term.sh never ran: \(seen)")
        #expect(killed.contains { $0.value.file == day.grandchildPID }, "hang.sh never ran: \(seen)")
        for (pid, origin) in killed {
            #expect(!Self.alive(pid), "process \(pid) of \(origin.file) outlived its generator's timeout")
        }

        // Stopped while a program hangs (and ignores SIGTERM): the daemon ends it before it exits.
        let hanging = Self.pid(in: day.stubbornPID).flatMap { Self.alive($0) ? $0 : nil }
        // The stop is timed for the hanging job's window; a loaded machine can move the schedule off it.
        withKnownIssue("the schedule drifted off the hanging job's window", isIntermittent: true) {
            #expect(hanging != nil, "no hanging program when the daemon was stopped (a loaded machine?)")
        }
        daemon.send(SIGTERM)
        let status = await daemon.waitForExit(timeout: 30)
        #expect(status == 0, "\(Self.redacted(daemon.stderr))")
        if let hanging {
            #expect(!Self.alive(hanging), "the program writing a text outlived the daemon (pid \(hanging))")
            if Self.alive(hanging) { kill(-hanging, SIGKILL) }
        }
        #expect(end.timeIntervalSince(Self.start) >= 5 * 3_600, "the day was not lived through: \(end)")

        let lines = Self.objects(daemon.stdout)
        Self.checkReports(lines, end: end)
        try await Self.checkHealthyJobs(day, end: end)
        try await Self.checkSecret(day, daemon: daemon, health: health.stdout + health.stderr)
        Self.checkHealth(health)
    }

    // MARK: Checks

    /// Each bad job: a report line per occurrence (±1, the last may be under way) with its
    /// plain reason and outcome, and none done.
    static func checkReports(_ lines: [[String: JSONValue]], end: Date) {
        let hours = end.timeIntervalSince(start) / 3_600
        func occurrences(every: Double, from minutes: Double) -> Int {
            Int((hours - minutes / 60) / every) + 1
        }
        let expected: [(job: String, outcome: String, reason: String, count: Int)] = [
            (
                "stubborn", "failed", "hang-ignoring-term.sh did not finish within 2 s and was killed",
                occurrences(every: 2, from: 5)
            ),
            (
                "grandchild", "failed", "hang.sh did not finish within 2 s and was killed",
                occurrences(every: 2, from: 65)
            ),
            ("crashes", "failed", "fail.sh exited with status 1: model unavailable", occurrences(every: 1, from: 20)),
            (
                "floods", "failed", "flood.sh printed more than 65536 bytes and was stopped",
                occurrences(every: 1, from: 20)
            ),
            ("silent", "failed", "silent.sh printed nothing", occurrences(every: 1, from: 20)),
            (
                "leaks", "skipped",
                "generated text refused (3 attempts): the text contains what looks like a Moltbook API key",
                occurrences(every: 3, from: 20)
            ),
            ("server-error", "failed", "answered HTTP 500: the model crashed", occurrences(every: 2, from: 50)),
            ("slow-model", "failed", "did not answer within 2 s", occurrences(every: 2, from: 95)),
        ]
        for (job, outcome, reason, count) in expected {
            let reports = lines.filter {
                $0["event"]?.string == "action" && $0["job"]?.string == job && $0["outcome"]?.string != "deferred"
            }
            let matching = reports.filter {
                $0["outcome"]?.string == outcome && ($0["reason"]?.string ?? "").contains(reason)
            }
            // A loaded machine stalls the daemon for seconds, tens of simulated minutes: an
            // occurrence may then count as missed, and fewer reports come. None may be anything else.
            let others = reports.filter {
                !matching.contains($0) && !($0["reason"]?.string ?? "").hasPrefix("missed while the runner")
            }.map { redacted("\($0["outcome"] ?? .null): \($0["reason"] ?? .null)") }
            #expect(others.isEmpty, "\(job): other reports: \(others)")
            #expect(matching.count <= count + 1, "\(job): \(matching.count) reports for \(count) occurrences")
            #expect(matching.count >= 1, "\(job): no `\(outcome)` report saying \(reason)")
            let logged = lines.filter {
                $0["recipe"]?.string == "bad" && $0["job"]?.string == job
                    && ["generation failed", "generator skipped"].contains($0["message"]?.string)
            }
            if outcome == "failed" {
                #expect(logged.count >= matching.count, "\(job): \(logged.count) `generation failed` lines")
            }
        }
    }

    /// The queue posted every hour and the healthy program commented every half hour, each
    /// within minutes of its occurrence, each text written once.
    static func checkHealthyJobs(_ day: Day, end: Date) async throws {
        let fixture = day.fixture
        let hours = Int(end.timeIntervalSince(start) / 3_600) + 1
        let titles = try await fixture.titles(of: "bad_gen_writer")
        // One a hour; a loaded machine's stalls (seconds are tens of simulated minutes) may cost two.
        #expect(
            (hours - 2...hours + 1).contains(titles.count),
            "\(titles.count) posts in \(hours) hourly occurrences: \(redacted("\(titles)"))")
        #expect(titles == (0..<titles.count).map { "Item \($0)" }, "\(redacted("\(titles)"))")
        #expect(try await fixture.counter("posts_created") == titles.count + 1)

        let halfHours = Int((end.timeIntervalSince(start) - 600) / 1_800) + 1
        let rows = try await fixture.sqlite(
            "SELECT occurrence, sent_at FROM journal WHERE job = 'good-comments' AND state = 'done' ORDER BY occurrence"
        )
        let done = rows.split(separator: "\n").map { $0.split(separator: "|").compactMap { Double($0) } }
        #expect(abs(done.count - halfHours) <= 1, "\(done.count) comments in \(halfHours) half-hourly occurrences")
        for row in done {
            // Unix seconds, the occurrence the nominal one (before any randomized delay).
            guard row.count == 2 else {
                Issue.record("a done comment without its occurrence and sending time: \(row)")
                continue
            }
            let late = row[1] - row[0]
            // A comment held up by a hanging generator would be 40 simulated minutes late (its 2 s
            // timeout and 2 s grace at x600); under 35 minutes (3.5 s of wall time) absorbs a
            // loaded machine's scheduling.
            #expect(late >= 0 && late < 35 * 60, "a comment of occurrence \(row[0]) was sent \(Int(late)) s late")
        }
        #expect(try await fixture.counter("comments_created") == done.count)
        #expect(
            try await fixture.journalCount("job NOT IN ('queue-posts', 'good-comments')") == 0,
            "a bad generator's write was journaled")
        // One program run per comment (none asked twice).
        let runs = ((try? String(contentsOfFile: day.log, encoding: .utf8)) ?? "").split(separator: "\n")
            .filter { $0.hasPrefix("start ") }.map { $0.split(separator: " ")[1] }
        #expect(Set(runs).count == runs.count, "a comment's text was asked for twice")
        #expect(abs(runs.count - done.count) <= 1, "\(runs.count) runs for \(done.count) comments")
    }

    /// The key-shaped string of model `secret` reaches no post, no comment, no state, no log.
    static func checkSecret(_ day: Day, daemon: ChildProcess, health: String) async throws {
        let fixture = day.fixture
        let calls = try await fixture.transport.send(
            HTTPRequest(method: .get, url: URL(string: GenerationDayTests.openAIBase(fixture) + "/_counters")!))
        let counters = try JSONValue.parse(calls.body)
        #expect((counters["secret"]?.int ?? 0) >= 3, "the secret model was asked \(counters["secret"] ?? .null) times")
        #expect(counters["_redirect_target"] == nil)

        let reader = try await registerOnSandbox(fixture.sandbox, "bad_gen_reader")
        var headers: HTTPHeaders = [:]
        headers.add(name: "Authorization", value: "Bearer " + reader)
        let feed = try await fixture.transport.send(
            HTTPRequest(method: .get, url: URL(string: fixture.base + "/posts?sort=new&limit=100")!, headers: headers))
        #expect(feed.status == 200)
        let postID = try #require(
            try JSONValue.parse(feed.body)["posts"]?.array?.first { $0["title"]?.string == "Open thread" }?["id"]?
                .string)
        let comments = try await fixture.transport.send(
            HTTPRequest(
                method: .get, url: URL(string: fixture.base + "/posts/\(postID)/comments?limit=100")!,
                headers: headers))
        #expect(comments.status == 200)
        #expect(String(decoding: comments.body, as: UTF8.self).contains("A considered reply"))
        for (what, body) in [("the feed", feed.body), ("the comments", comments.body)] {
            #expect(
                !String(decoding: body, as: UTF8.self).contains("moltbook_sk_"), "a key-shaped string is in \(what)")
        }
        for suffix in ["", "-wal"] {
            if let bytes = FileManager.default.contents(atPath: fixture.statePath + suffix) {
                #expect(
                    bytes.range(of: Data("moltbook_sk_".utf8)) == nil, "a key-shaped string is in the state\(suffix)")
            }
        }
        for (what, text) in [("stdout", daemon.stdout), ("stderr", daemon.stderr), ("status", health)] {
            #expect(!text.contains("moltbook_sk_"), "a key-shaped string is in the daemon's \(what)")
        }
    }

    /// `status --health` while the daemon runs: unhealthy, naming each job whose generator
    /// failed three occurrences in a row (`generator_failing`) with its last reason, and nothing
    /// else: not the healthy jobs, not `leaks` (its texts were refused, its generator did not
    /// fail), no pause (the agent was never stopped by what its generators did).
    static func checkHealth(_ health: ProcessRunner.Result) {
        #expect(health.status == 1, "status --health exited \(health.status)")
        let json = (try? JSONValue.parse(Data(health.stdout.utf8))) ?? .null
        #expect(json["healthy"]?.bool == false)
        let problems = (json["problems"]?.array ?? []).map {
            (kind: $0["kind"]?.string ?? "", agent: $0["agent"]?.string, message: redacted($0["message"]?.string ?? ""))
        }
        let failing: [(job: String, reason: String, certain: Bool)] = [
            ("crashes", "exited with status 1: model unavailable", true),
            ("floods", "printed more than 65536 bytes", true),
            ("silent", "printed nothing", true),
            // Three occurrences each by 6:15: the last could still be on its way on a loaded machine.
            ("stubborn", "did not finish within 2 s and was killed", false),
            ("grandchild", "did not finish within 2 s and was killed", false),
            ("server-error", "answered HTTP 500", false),
            ("slow-model", "did not answer within 2 s", false),
        ]
        for (job, reason, certain) in failing {
            let named = problems.filter { $0.kind == "generator_failing" && $0.message.contains("job bad/\(job):") }
            if certain || !named.isEmpty {
                #expect(named.count == 1, "\(job): \(problems)")
                #expect(
                    named.allSatisfy { $0.agent == "bad_gen_writer" && $0.message.contains(reason) }, "\(job): \(named)"
                )
            }
        }
        let known = Set(failing.map { "job bad/\($0.job):" })
        let others = problems.filter { problem in
            problem.kind != "generator_failing" || !known.contains { problem.message.contains($0) }
        }
        #expect(others.isEmpty, "other problems: \(others)")
    }

    // MARK: Helpers

    /// The daemon's log lines as JSON objects (a line that is not one fails the test, redacted).
    static func objects(_ text: String) -> [[String: JSONValue]] {
        text.split(separator: "\n").compactMap { line -> [String: JSONValue]? in
            let object = try? JSONValue.parse(Data(line.utf8)).object
            #expect(object != nil, "not a JSON object: \(redacted(String(line)))")
            return object
        }
    }

    static func pid(in file: String) -> Int32? {
        (try? String(contentsOfFile: file, encoding: .utf8)).flatMap {
            Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// Whether `pid` is a live process (a zombie, killed and not yet reaped by whoever adopted
    /// it, is not).
    static func alive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).prefix(1)
        return state != "Z" && state != "X"
    }

    /// `text` with anything key-shaped cut short, for messages.
    static func redacted(_ text: String) -> String {
        text.replacingOccurrences(of: "moltbook_sk_[A-Za-z0-9_-]*", with: "moltbook_sk_…", options: .regularExpression)
    }
}
