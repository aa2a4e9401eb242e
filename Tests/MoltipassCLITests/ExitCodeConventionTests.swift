import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Exit codes by convention (README, "Exit codes"), through the real binary: 0 for every outcome
/// of `run --once` that is not a failure, quiet on success, the detail behind
/// `--detailed-exitcode` and in `--json`'s `outcome`; `moltipass` alone is a usage error.
@Suite("exit code conventions")
struct ExitCodeConventionTests {
    /// `moltipass` without a subcommand prints the help on stderr (nothing on stdout) and exits
    /// 64; so do `moltipass keys` and `moltipass challenge`; `--help` still prints it on stdout, exit 0.
    @Test func noSubcommandIsAUsageError() async throws {
        for group in [[], ["keys"], ["challenge"]] {
            let bare = try await ProcessRunner.run("moltipass", group)
            #expect(bare.status == 64, "\(group): \(bare.stderr)")
            #expect(bare.stdout.isEmpty, "\(group): \(bare.stdout)")
            #expect(bare.stderr.contains("USAGE: moltipass"), "\(group): \(bare.stderr)")
            #expect(bare.stderr.contains("SUBCOMMANDS:"), "\(group): \(bare.stderr)")
        }
        let help = try await ProcessRunner.run("moltipass", ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("SUBCOMMANDS:"))
    }

    /// Without `--detailed-exitcode`, done, nothing due, deferred, locked by another process and
    /// paused by the operator all exit 0 and print nothing on stderr; `--json` names each outcome;
    /// with the flag they exit 0, 3, 4, 5 and 6. `--verbose` adds the summary line.
    @Test func ordinaryOutcomesExitZeroQuietly() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("plain_poster")
        try fixture.queue(count: 5)
        let recipe = try fixture.postingRecipe("plain_poster")
        let t0 = RunFixture.t0

        /// Runs plainly and with the flag at `at` (the plain run first: it may do the work) and
        /// checks the plain run's exit status, its silence and its `outcome`.
        func expect(_ outcome: String, detailed: Int32, at: Date, sourceLocation: SourceLocation = #_sourceLocation)
            async throws
        {
            let plain = try await fixture.run([recipe, "--once", "--json"], at: at, detailed: false)
            #expect(plain.status == 0, "\(outcome): \(plain.stderr)", sourceLocation: sourceLocation)
            #expect(plain.stderr.isEmpty, "\(outcome): \(plain.stderr)", sourceLocation: sourceLocation)
            let report = try JSONValue.parse(Data(plain.stdout.utf8))
            #expect(report["outcome"]?.string == outcome, "\(plain.stdout)", sourceLocation: sourceLocation)
            if outcome == "done" { return }
            let flagged = try await fixture.run([recipe, "--once", "--json"], at: at, detailed: true)
            #expect(flagged.status == detailed, "\(outcome): \(flagged.stderr)", sourceLocation: sourceLocation)
            let again = try JSONValue.parse(Data(flagged.stdout.utf8))
            #expect(again["outcome"]?.string == outcome, "\(flagged.stdout)", sourceLocation: sourceLocation)
        }

        try await expect("done", detailed: 0, at: t0)
        #expect(try await fixture.counter("posts_created") == 1)
        try await expect("nothing_due", detailed: 3, at: t0.addingTimeInterval(5))
        // A new agent may post once per 2 h: the 10:30 occurrence is deferred.
        try await expect("deferred", detailed: 4, at: t0.addingTimeInterval(1_805))

        // Another machine's live lease: nothing is done for the agent.
        let now = t0.addingTimeInterval(1_810).timeIntervalSince1970
        _ = try await fixture.sqlite(
            "INSERT OR REPLACE INTO leases VALUES ('plain_poster', 'daemon-1-0badcafe@00000000.1', \(now), \(now + 600), 1);"
        )
        try await expect("locked", detailed: 5, at: t0.addingTimeInterval(1_815))
        _ = try await fixture.sqlite("DELETE FROM leases;")

        // Paused by the operator: not a failure; `pause_kinds` says whose pause it is.
        let paused = try await fixture.home.run([
            "pause", "plain_poster", "--state", fixture.statePath, "--now",
            RunFixture.iso(t0.addingTimeInterval(1_820)),
        ])
        #expect(paused.status == 0, "\(paused.stderr)")
        try await expect("paused", detailed: 6, at: t0.addingTimeInterval(7_300))
        let report = try await fixture.run([recipe, "--once", "--json"], at: t0.addingTimeInterval(7_305))
        let kinds = try JSONValue.parse(Data(report.stdout.utf8))["pause_kinds"]?["plain_poster"]?.array
        #expect(kinds?.compactMap(\.string) == ["manual"], "\(report.stdout)")
        #expect(try await fixture.counter("posts_created") == 1)

        let verbose = try await fixture.run(
            [recipe, "--once", "--verbose"], at: t0.addingTimeInterval(7_310), detailed: false)
        #expect(verbose.status == 0)
        #expect(verbose.stderr.contains("moltipass: 0 done"), "\(verbose.stderr)")
        #expect(verbose.stderr.contains("paused: plain_poster"), "\(verbose.stderr)")
    }

    /// `--max-wait` refuses what is not a duration with exit 64 and the accepted forms;
    /// `--max-tick-age` takes a duration (`2m`, `90s`, `1h30m`) or a bare number of seconds.
    @Test func durationsOnTheCommandLine() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = home.directory.file("r.yaml").path
        try "agent: some_agent\njobs:\n  - id: j\n    schedule: { every: 1h }\n    steps:\n      - follow: x\n"
            .write(toFile: recipe, atomically: true, encoding: .utf8)
        for bad in ["5x", "soon", "1h1h", ""] {
            let refused = try await home.run(["run", recipe, "--once", "--max-wait", bad])
            #expect(refused.status == 64, "\(bad): \(refused.stderr)")
            #expect(refused.stderr.contains("is not a duration"), "\(bad): \(refused.stderr)")
            #expect(refused.stderr.contains("90s, 5m, 1h"), "\(bad): \(refused.stderr)")
        }
        let state = home.directory.file("state.sqlite").path
        for good in ["2m", "90s", "45", "1h30m"] {
            let status = try await home.run(["status", recipe, "--state", state, "--health", "--max-tick-age", good])
            // Never ticked: unhealthy (1), but the option was accepted (not 64).
            #expect(status.status == 1, "\(good): \(status.stderr)")
        }
        let refused = try await home.run(["status", recipe, "--state", state, "--health", "--max-tick-age", "soon"])
        #expect(refused.status == 64, "\(refused.stderr)")
    }
}
