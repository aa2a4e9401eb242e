import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// README.md's "Running recipes", run through the real binary against a `moltbook-sandbox`
/// process and a real state file: the shell lines with the times and exit statuses of their
/// comments, and the outputs and field tables the section shows.
@Suite("README Running recipes")
struct ReadmeRunningTests {
    /// The section's lines in order, after registering and claiming both demo agents at 09:55:
    /// every line exits as its comment says (0 for `run --once`, quiet: nothing on stderr; 4 with
    /// `--detailed-exitcode` for the deferred run, 5 while the daemon holds the lease); the daemon
    /// logs JSON lines, reloads on SIGHUP and exits 0 on SIGTERM; the
    /// documented summary line, `--json` report and `status` output equal the real ones
    /// (timestamps within 5 s); the report's documented fields are exactly those emitted; every
    /// `status --json` field emitted is documented; the sandbox saw one post, one comment, one
    /// vote, no 429 and no duplicate.
    @Test func runningRecipesSection() async throws {
        let section = try Readme.section("Running recipes")
        let lines = try Readme.shellLines(in: section)
        #expect(lines.count >= 9)
        #expect(Set(lines.compactMap { $0.words.contains("--once") ? $0.status : nil }) == [0, 4, 5])

        let fixture = try await RunFixture.start()
        let shell = ReadmeShell(home: fixture.home, sandbox: fixture.sandbox, useClock: true)
        defer { Task { await shell.stop() } }
        try await shell.setClock(ReadmeShell.instant("09:55"))
        try await fixture.agent("demo_author")
        try await fixture.agent("demo_reader")

        var results: [(Readme.ShellLine, ProcessRunner.Result)] = []
        for line in lines {
            if line.words.first == "moltipass", line.words.last == "&" {
                try await shell.run(line)
                let state = shell.environment["MOLTIPASS_STATE"] ?? ""
                let held = try await shell.eventually {
                    try await Self.leaseHolder(state: state, account: "demo_author")?.hasPrefix("daemon-") == true
                }
                #expect(
                    held,
                    "the daemon did not take the lease: \(shell.daemon?.stdout ?? "") \(shell.daemon?.stderr ?? "")")
                continue
            }
            if let result = try await shell.run(line) { results.append((line, result)) }
        }
        // Quiet on success: the plain `run --once` lines print nothing (cron mails nothing).
        let plain = results.filter { $0.0.words.contains("--once") && !$0.0.words.contains("--verbose") }
        #expect(plain.count >= 2)
        for (line, result) in plain where result.status == 0 {
            #expect(result.stderr.isEmpty, "\(line): \(result.stderr)")
        }

        // The daemon: JSON lines on stdout (not a terminal), started, reloaded, stopped.
        let daemon = try #require(shell.daemon)
        let logLines = daemon.stdout.split(separator: "\n")
        #expect(!logLines.isEmpty)
        for logLine in logLines { #expect((try? JSONValue.parse(Data(logLine.utf8)))?.object != nil, "\(logLine)") }
        for message in ["daemon started", "recipes reloaded", "daemon stopped"] {
            #expect(daemon.stdout.contains("\"message\":\"\(message)\""), "missing \(message)")
        }

        // `--json` report: the documented example and field table.
        let reportFile = fixture.home.path + "/report.json"
        let report = try String(contentsOfFile: reportFile, encoding: .utf8)
        let documentedReport = try #require(Readme.blocks("json", in: section).first).joined(separator: "\n")
        Readme.expectSameOutput(report, documentedReport + "\n")
        let emitted = Readme.fieldPaths(try JSONValue.parse(Data(report.utf8)))
        let documented = Set(
            Readme.table(startingWith: "field", in: section).flatMap { Readme.codeSpans($0[0]) }
                .map { $0.hasSuffix("[]") ? String($0.dropLast(2)) : $0 })
        #expect(emitted == documented)

        // The summary line of the deferred run (the message of the closing JSON line when stderr
        // is not a terminal).
        let deferred = try #require(results.first { $0.0.status == 4 }?.1)
        let lastLine = String(deferred.stderr.split(separator: "\n").last ?? "")
        let summary = (try? JSONValue.parse(Data(lastLine.utf8)))?["message"]?.string ?? lastLine
        let documentedSummary = try #require(
            Readme.blocks("text", in: section).first { $0.first?.hasPrefix("moltipass:") == true }?.first)
        Readme.expectSameOutput(summary, documentedSummary)

        // `status`: the documented text output, and the JSON fields.
        let statusBlock = try #require(
            Readme.blocks("text", in: section).first { $0.first?.hasPrefix("$ moltipass status") == true })
        let statusCommand = try Readme.parse(String(statusBlock[0].dropFirst(2)))
        let textStatus = try #require(
            results.first { $0.0.words == statusCommand.words && $0.0.time != nil }?.1)
        Readme.expectSameOutput(textStatus.stdout, statusBlock.dropFirst().joined(separator: "\n") + "\n")
        let health = try #require(results.first { $0.0.words.contains("--health") }?.1)
        #expect(health.stdout == "healthy\n")

        let statusJSON = try #require(results.first { $0.0.words.contains("status") && $0.0.words.contains("--json") })
        let parsedStatus = try JSONValue.parse(Data(statusJSON.1.stdout.utf8))
        let author = parsedStatus["agents"]?.array?.first { $0["agent"]?.string == "demo_author" }
        #expect(author?["lease_holder"]?.string?.hasPrefix("daemon-") == true, "\(statusJSON.1.stdout)")
        let statusFields = Readme.table(startingWith: "`status --json` field", in: section)
            .flatMap { Readme.codeSpans($0[0]) }
        #expect(!statusFields.isEmpty)
        for path in Readme.fieldPaths(parsedStatus) {
            #expect(statusFields.contains { $0 == path || $0.hasPrefix(path + "[].") }, "\(path) is not documented")
        }

        let counters = try await fixture.counters()
        #expect(counters["posts_created"]?.int == 1)
        #expect(counters["comments_created"]?.int == 1)
        #expect(counters["votes_cast"]?.int == 1)
        #expect(counters["rate_limited"]?.int == 0)
        #expect(counters["duplicate_contents"]?.int == 0)
        fixture.home.expectNoLeak(of: [])
    }

    /// The documented `status --json` fields are exactly the report's stored properties
    /// (`Sources/MoltipassCommands/Status/StatusReport.swift`, snake_case): none missing, none invented.
    @Test func statusFieldsMatchTheReport() throws {
        let section = try Readme.section("Running recipes")
        let documented = Set(
            Readme.table(startingWith: "`status --json` field", in: section).flatMap { Readme.codeSpans($0[0]) }
                .flatMap { $0.split(separator: ".").map { String($0.replacingOccurrences(of: "[]", with: "")) } })
        let source = try String(
            contentsOf: Fixtures.packageRoot.appendingPathComponent(
                "Sources/MoltipassCommands/Status/StatusReport.swift"),
            encoding: .utf8)
        let declared = Set(
            source.split(separator: "\n").filter { !$0.contains("{") }
                .compactMap { $0.firstMatch(of: /^\s+public var (\w+):/).map { Self.snakeCase(String($0.1)) } })
        #expect(declared.count >= 20)
        #expect(documented == declared)
    }

    static func snakeCase(_ name: String) -> String {
        name.reduce(into: "") { result, character in
            if character.isUppercase { result += "_" + character.lowercased() } else { result.append(character) }
        }
    }

    /// The holder of `account`'s lease, read with the system `sqlite3` (nil: none yet).
    static func leaseHolder(state: String, account: String) async throws -> String? {
        guard FileManager.default.fileExists(atPath: state) else { return nil }
        let result = try await ProcessRunner.runSystem(
            "/usr/bin/sqlite3", [state, "SELECT holder FROM leases WHERE account = '\(account)';"])
        let holder = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return holder.isEmpty ? nil : holder
    }
}
