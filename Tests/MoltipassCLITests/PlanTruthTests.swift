import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// `moltipass plan` tells the truth (issue 19): each test is one thing users saw, through the
/// real binary.
@Suite("moltipass plan: the truth")
struct PlanTruthTests {
    static let from = "2026-03-02T00:00:00Z"

    static let poster = """
        agent: poster_bot
        time_zone: Europe/Berlin
        base_url: http://127.0.0.1:9/api/v1
        jobs:
          - id: hourly
            schedule: { every: 1h }
            steps:
              - post: { submolt: general, title: "Hourly {{ date: HH:mm }}", content: "Body {{ date: HH:mm }}" }
        """

    static let voter = """
        agent: voter_bot
        time_zone: America/New_York
        jobs:
          - id: votes
            schedule: { every: 30m }
            steps:
              - vote:
                  ensure: upvoted
                  on: { source: submolt, submolt: general, sort: new, max_per_run: 2 }
        """

    static func write(_ text: String, _ name: String, in home: KeysHome) throws -> String {
        let path = home.directory.file(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func json(_ result: ProcessRunner.Result) throws -> JSONValue {
        try JSONValue.parse(Data(result.stdout.utf8))
    }

    /// A `--from` later than now starts from an empty simulated state, so the preview is not
    /// buried under the "missed" rows of a replayed state file; `--from-state` replays it.
    @Test func futureFromStartsClean() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = try Self.write(Self.poster, "poster.yaml", in: home)
        let state = home.directory.file("state.sqlite").path
        _ = try await home.run(["run", recipe, "--once", "--state", state, "--now", Self.from])
        #expect(FileManager.default.fileExists(atPath: state))
        let args = ["plan", recipe, "--for", "1d", "--from", "2026-03-12T00:00:00Z", "--now", "2026-03-02T01:00:00Z"]
        let plan = try await home.run(args + ["--state", state, "--json"])
        #expect(plan.status == 0, "\(plan.stderr)")
        let parsed = try Self.json(plan)
        #expect(parsed["scenario"]?["state_copied"]?.bool == false)
        #expect(parsed["scenario"]?["state_skipped"]?.string?.contains("--from-state") == true)
        let events = parsed["events"]?.array ?? []
        #expect(!events.contains { ($0["reason"]?.string ?? "").contains("missed") })
        #expect(events.filter { $0["outcome"]?.string == "done" }.count == 24)

        let text = try await home.run(args + ["--state", state])
        #expect(text.stdout.contains("--from is in the future: started from an empty state"))

        let replayed = try await home.run(args + ["--state", state, "--json", "--from-state"])
        let replayedEvents = try Self.json(replayed)["events"]?.array ?? []
        #expect(try Self.json(replayed)["scenario"]?["state_copied"]?.bool == true)
        #expect(replayedEvents.contains { ($0["reason"]?.string ?? "").contains("missed") })
    }

    /// Rows of agents in different zones are shown in one zone (UTC when the recipes differ,
    /// said in the header; `--tz` chooses), in the order of their instants.
    @Test func oneZonePerTable() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipes = [
            try Self.write(Self.poster, "poster.yaml", in: home), try Self.write(Self.voter, "voter.yaml", in: home),
        ]
        let args = ["plan"] + recipes + ["--for", "12h", "--from", Self.from]
        let plan = try await home.run(args)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("times in UTC (the recipes' zones differ: America/New_York, Europe/Berlin"))
        let times = Self.rowTimes(plan.stdout)
        #expect(times.count > 20)
        #expect(times.allSatisfy { $0.hasSuffix("+00:00") })
        #expect(times == times.sorted())

        let tokyo = try await home.run(args + ["--tz", "Asia/Tokyo"])
        #expect(tokyo.stdout.contains("times in Asia/Tokyo (--tz)"))
        let tokyoTimes = Self.rowTimes(tokyo.stdout)
        #expect(tokyoTimes.count == times.count)
        #expect(tokyoTimes.allSatisfy { $0.hasSuffix("+09:00") })
        #expect(tokyoTimes == tokyoTimes.sorted())

        let single = try await home.run(["plan", recipes[0], "--for", "3h", "--from", Self.from])
        #expect(single.stdout.contains("times in Europe/Berlin (the recipes' zone)"))

        let bad = try await home.run(args + ["--tz", "Mars/Olympus"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--tz: Mars/Olympus is not a time zone"))
    }

    /// The first column of each table row (`2026-03-02 01:00:00 +01:00`), up to the summary.
    static func rowTimes(_ text: String) -> [String] {
        var times: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(3) {
            if line.isEmpty { break }
            if line.hasPrefix("time ") { continue }
            times.append(String(line.prefix(26)))
        }
        return times
    }

    /// Votes and comments name the post they target, by title and author (the id stays in --json).
    @Test func votesNameTheirTargets() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = try Self.write(Self.voter, "voter.yaml", in: home)
        let args = ["plan", recipe, "--for", "6h", "--from", Self.from]
        let plan = try await home.run(args)
        let votes = plan.stdout.split(separator: "\n").filter { $0.contains("upvote_post") && $0.contains(" done") }
        #expect(votes.count >= 4)
        #expect(votes.allSatisfy { $0.contains("” by sim_author_") }, "\(votes.first ?? "")")
        let events = try Self.json(try await home.run(args + ["--json"]))["events"]?.array ?? []
        let voted = events.filter { $0["action"]?.string == "upvote_post" }
        #expect(!voted.isEmpty)
        for event in voted {
            #expect(event["target"]?.string?.count == 36, "the id is kept")
            #expect(event["target_title"]?.string?.isEmpty == false)
            #expect(event["target_author"]?.string?.hasPrefix("sim_author_") == true)
        }
    }

    /// With transient faults, the budget column's peaks are what the simulated server applied,
    /// against the limits it enforced: never above a limit it did not refuse a request for.
    @Test func faultsNeverShowAPeakAboveALimit() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let busy = """
            agent: busy_bot
            jobs:
              - id: posts
                schedule: { every: 10m }
                steps:
                  - post: { submolt: general, title: "Note {{ date: HH:mm }}", content: "Body {{ date: dd HH:mm }}" }
            """
        let recipe = try Self.write(busy, "busy.yaml", in: home)
        // Three simulated days with faults take a debug build a minute on a busy CI machine.
        let plan = try await home.run(
            ["plan", recipe, "--for", "3d", "--from", Self.from, "--fault-rate", "0.3", "--json"], timeout: 600)
        #expect(plan.status == 0, "\(plan.stderr)")
        let parsed = try Self.json(plan)
        #expect((parsed["server"]?["faults_injected"]?.int ?? 0) > 50)
        #expect(parsed["server"]?["rate_limited"]?.int == 0)
        var budgets = 0
        for line in parsed["summary"]?.array ?? [] {
            for budget in line["budget"]?.array ?? [] {
                budgets += 1
                let (peak, limit) = (budget["peak"]?.int ?? 0, budget["limit"]?.int ?? 0)
                #expect(
                    peak <= limit,
                    "\(line["limit_class"]?.string ?? "") \(budget["rule"]?.string ?? "") \(peak)/\(limit)")
            }
        }
        let post = (parsed["summary"]?.array ?? []).first { $0["limit_class"]?.string == "post" }
        #expect(post?["budget"]?.array?.first?["rule"]?.string == "post.cooldown")
        #expect(post?["budget"]?.array?.first?["peak"]?.int == 1)
        #expect(budgets >= 3)
    }

    /// `--fail-on deferred,…` exits 10 when a row has one of the outcomes, and says how many.
    @Test func failOnOutcomes() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let busy = """
            agent: busy_bot
            jobs:
              - id: posts
                schedule: { every: 10m }
                steps:
                  - post: { submolt: general, title: "Note {{ date: HH:mm }}", content: "Body {{ date: HH:mm }}" }
            """
        let recipe = try Self.write(busy, "busy.yaml", in: home)
        let args = ["plan", recipe, "--for", "1d", "--from", Self.from]
        let plain = try await home.run(args)
        #expect(plain.status == 0)
        let failing = try await home.run(args + ["--fail-on", "deferred,skipped"])
        #expect(failing.status == 10)
        #expect(failing.stderr.contains(" deferred, "))
        #expect(failing.stderr.contains(" skipped in the plan"))
        #expect(failing.stdout == plain.stdout)
        let clean = try await home.run(args + ["--fail-on", "failed,uncertain"])
        #expect(clean.status == 0, "\(clean.stderr)")
        let bad = try await home.run(args + ["--fail-on", "deferred,late"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("deferred, skipped, failed, uncertain; \"late\" is none of them"))
    }

    /// A bad `--html` path fails at once, before simulating, with a message and no system error text.
    @Test func outputPathCheckedFirst() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = try Self.write(Self.poster, "poster.yaml", in: home)
        // Before anything else: a state file that is not a database would stop a plan that got
        // as far as reading it; the output path is refused first.
        let notDatabase = home.path + "/not-a-database"
        try "not sqlite".write(toFile: notDatabase, atomically: true, encoding: .utf8)
        let missing = try await home.run([
            "plan", recipe, "--for", "90d", "--from", Self.from, "--html", home.path + "/no/such/dir/plan.html",
            "--state", notDatabase, "--from-state",
        ])
        #expect(missing.status == 64, "\(missing.stderr)")
        #expect(missing.stderr.contains("the directory \(home.path)/no/such/dir does not exist"))
        #expect(!missing.stderr.contains("NSCocoaErrorDomain"))
        #expect(!missing.stderr.contains("Error Domain"))
        let directory = try await home.run(["plan", recipe, "--for", "1d", "--from", Self.from, "--html", home.path])
        #expect(directory.status == 64)
        #expect(directory.stderr.contains("is a directory"))
    }

    /// On a terminal a progress line is drawn on stderr (cleared at the end); never otherwise.
    @Test func progressOnlyOnATerminal() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = try Self.write(Self.poster, "poster.yaml", in: home)
        let args = ["plan", recipe, "--for", "3d", "--from", Self.from, "--state", home.path + "/none.sqlite"]
        let piped = try await home.run(args)
        #expect(piped.status == 0)
        #expect(piped.stderr.isEmpty)
        #expect(!piped.stdout.contains("simulated day"))
        let command =
            ([ProcessRunner.executable("moltipass").path] + args + ["--progress-after", "0"])
            .map { "'\($0)'" }.joined(separator: " ") + " >/dev/null"
        let terminal = try await ProcessRunner.runSystem("/usr/bin/script", ["-qec", command, "/dev/null"])
        #expect(terminal.status == 0, "\(terminal.stderr)")
        #expect(terminal.stdout.contains("moltipass plan: simulated day 1 of 3"), "\(terminal.stdout)")
        #expect(terminal.stdout.contains("\r\u{1B}[K"), "the line is redrawn and cleared")
    }
}
