import ArgumentParser
import Determinism
import Foundation
import Logging
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan
import Recipes
import Storage

/// `moltipass run RECIPE… [--once]`: the engine, for cron (`--once`) or as a daemon.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run recipes: once for cron (--once), or as a long-running daemon.",
        discussion: """
            Exit status with --once: 0 for every outcome that is not a failure (something done, nothing due, \
            deferred by limits, another run holds the lock, paused by the operator); 6 paused by the server or \
            a failed challenge, 7 a content queue ran dry, 8 a write failed, 9 a write's outcome is uncertain, 12 keychain, 65 invalid \
            recipe, 75 transient failure, 77 auth broken (a refused key or unclaimed agent). With \
            --detailed-exitcode: 3 nothing due, 4 deferred, 5 locked, 6 paused (any pause). Quiet on success: \
            the summary goes to stderr only on failure, with --verbose, or with --log-level info or lower.
            The daemon exits 0 after SIGTERM/SIGINT; SIGHUP reloads the recipes.
            """)

    @Argument(help: "Recipe files.")
    var recipes: [String]

    @Flag(help: "Do what is due now and exit (cron).")
    var once = false

    @Option(
        help: ArgumentHelp(
            "With --once: wait inline at most this long for a deferred action (90s, 5m; a bare number is seconds).",
            valueName: "duration"))
    var maxWait = "0"

    @Flag(help: "With --once: exit 3 nothing due, 4 deferred, 5 locked, 6 paused by anyone, instead of 0.")
    var detailedExitcode = false

    @Flag(help: "With --once: log every action and print the summary even when nothing failed.")
    var verbose = false

    @Option(help: "The state database (default: $MOLTIPASS_STATE, else $XDG_STATE_HOME/moltipass/state.sqlite).")
    var state: String?

    @OptionGroup var keys: KeysOptions

    @Flag(help: "With --once: print the report as JSON on stdout.")
    var json = false

    @Option(help: "Log format: text or json (default: json when stdout is not a terminal).")
    var logFormat: String?

    @Option(help: "Log level: trace, debug, info, notice, warning (or warn), error, critical.")
    var logLevel: String?

    @Option(
        help: ArgumentHelp(
            "Keep done journal entries at least this long (90d, 30d, ...), or 'forever'.",
            discussion: "Older ones are pruned once a day; dedup facts, pending and failed entries always stay.",
            valueName: "duration"))
    var journalRetention = "90d"

    @Option(
        help: ArgumentHelp(
            "How long an agent's lease lasts without renewal (30s...1d; default 10m).",
            discussion:
                "Runners sharing one state take a dead runner's agents over this long after its last renewal; "
                + "longer than the slowest request plus the clock skew between hosts (docs/deploy.md).",
            valueName: "duration"))
    var leaseTtl = "10m"

    @Option(
        help: ArgumentHelp(
            "Daemon: serve /metrics, /healthz and /readyz at HOST:PORT, :PORT or PORT (127.0.0.1 unless a host is given).",
            discussion: "0.0.0.0:9464 listens on every interface. Prometheus text format; nothing secret is served.",
            valueName: "address"))
    var listen: String?

    @Option(
        help: ArgumentHelp(
            "With --once: write the metrics to this file at the end of the run (atomically; node_exporter's textfile collector).",
            valueName: "path"))
    var metricsTextfile: String?

    @Option(help: .hidden)
    var now: String?

    @Option(
        help: ArgumentHelp(
            "For tests and demos: run the clock N times faster than real time (1...100000), and every wait N times shorter.",
            discussion:
                "With a sandbox started with the same --time-scale, a daemon lives through a simulated day in minutes.",
            valueName: "N"))
    var timeScale: String?

    /// `--journal-retention`, parsed.
    static func retention(_ text: String) throws -> JournalRetention {
        guard let retention = JournalRetention(text) else {
            throw ValidationError("--journal-retention takes a duration such as 90d or 12h30m, or 'forever'")
        }
        return retention
    }

    func validate() throws {
        if recipes.isEmpty { throw ValidationError("give at least one recipe file") }
        if let logFormat, !["text", "json"].contains(logFormat) { throw ValidationError("--log-format text|json") }
        if let logLevel, LogLevelOption.level(logLevel) == nil {
            throw ValidationError(LogLevelOption.problem(logLevel))
        }
        if DurationOption.seconds(maxWait, allowZero: true) == nil {
            throw ValidationError(DurationOption.problem("--max-wait", maxWait))
        }
        if let now, NowOption.instant(now) == nil { throw ValidationError(NowOption.problem) }
        if let timeScale, TimeScale(timeScale) == nil {
            throw ValidationError(TimeScale.problem("--time-scale", timeScale))
        }
        _ = try Self.retention(journalRetention)
        _ = try Self.leaseSeconds(leaseTtl)
        _ = try listenAddress()
    }

    /// `--lease-ttl`, parsed: 30 s to a day (shorter than the slowest request would let a live
    /// runner lose its agent mid-request).
    static func leaseSeconds(_ text: String) throws -> TimeInterval {
        guard let seconds = DurationOption.seconds(text, allowZero: false), (30...86_400).contains(seconds) else {
            throw ValidationError("--lease-ttl takes a duration from 30s to 1d, such as 10m")
        }
        return seconds
    }

    func run() async throws {
        // The instant `--now` names: before the recipes are read and the store is opened.
        let started = ContinuousClock.now
        try await reportingFailures {
            let environment = ProcessInfo.processInfo.environment
            // An invalid recipe, or one this machine cannot run (an unset `env:` variable, a
            // missing solver command), is reported and skipped; the others run (issue 19). A
            // cron run still exits 65 for it, after doing the rest.
            let (valid, invalid) = RunSession.loadValidRecipes(self.recipes)
            if !invalid.isEmpty { printError(Diagnostics(invalid).description) }
            let (recipes, local) = LocalChecks.split(valid, environment: environment)
            for problem in local { printError("error: \(problem.message)") }
            let skipped = Daemon.problems(invalid: invalid) + local
            guard !recipes.isEmpty else { return .invalidRecipe }
            guard let stateTarget = StateLocation.target(flag: state, environment: environment) else {
                throw ValidationError("no state path: give --state or set MOLTIPASS_STATE")
            }
            let logger = makeLogger()
            let keySession = try keys.session()
            var session: RunSession
            do {
                session = try await RunSession(
                    recipes: recipes, state: stateTarget, keys: keySession, logger: logger,
                    now: now.flatMap(NowOption.instant), timeScale: timeScale.flatMap(TimeScale.init) ?? .realTime,
                    started: started)
            } catch let error as StorageError where ErrorReporting.exitStatus(for: error) == .transient {
                // A state another process holds past the wait is contention: 75, try again (it was 1). Other
                // storage errors keep their own words and exit 1.
                FileHandle.standardError.write(Data("moltipass: \(error)\n".utf8))
                Foundation.exit(ExitStatus.transient.rawValue)
            }
            session.journalRetention = try Self.retention(journalRetention)
            session.leaseTTL = try Self.leaseSeconds(leaseTtl)
            session.telemetry = metrics(recipes)
            if once {
                let stopping = OnceStop.install()
                defer { withExtendedLifetime(stopping) {} }
                let started = session.clock()
                let report = await session.runOnce(
                    maxWait: DurationOption.seconds(maxWait, allowZero: true) ?? 0, environment: environment)
                OnceStop.exitIfStopped()
                var reportLogger = ReportLogger(logger: logger, store: session.store, repeatDeferrals: true)
                await reportLogger.log(report, since: started)
                let output = RunOnceOutput(report: report, detailed: detailedExitcode)
                if json {
                    try? printEncoded(output)
                }
                if !output.printsSummary(level: level) {
                    // Quiet on success: cron mails problems only.
                } else if jsonLogs {
                    // Every line on stderr stays JSON: the summary is the closing `event=run` line.
                    FileHandle.standardError.write(
                        JSONLogHandler.line(
                            level: .notice, message: report.summary, label: "moltipass",
                            metadata: ReportLogger.summary(report, detailed: detailedExitcode)))
                } else {
                    printError(report.summary)
                }
                // A skipped recipe is a failure: it wins over every outcome that is not one.
                let status =
                    skipped.isEmpty || report.exitStatus(detailed: false) != .ok ? output.exitStatus : .invalidRecipe
                let written = await writeMetricsTextfile(session, status: status)
                await StateTarget.close(session.store)
                OnceStop.exitIfStopped()
                return written
            }
            var daemon = Daemon(
                session: session, recipePaths: self.recipes, environment: environment, startupProblems: skipped)
            daemon.listen = try listenAddress()
            let stopped = await daemon.run(signals: SignalWaiter())
            await StateTarget.close(session.store)
            return stopped
        }
    }

    /// JSON log lines: `--log-format json`, or no `--log-format` and the log stream is not a terminal.
    var jsonLogs: Bool { (logFormat ?? (isatty(once ? 2 : 1) == 1 ? "text" : "json")) == "json" }

    /// `--log-level`, else info with `--verbose` or for the daemon, else warning.
    var level: Logger.Level {
        logLevel.flatMap(LogLevelOption.level) ?? (once && !verbose ? .warning : .info)
    }

    func makeLogger() -> Logger {
        let level = level
        // The daemon logs on stdout; a cron run keeps stdout for --json and logs on stderr.
        let output = once ? FileHandle.standardError : FileHandle.standardOutput
        let json = jsonLogs
        return Logger(label: "moltipass") { label -> any LogHandler in
            if json { return JSONLogHandler(label: label, level: level, output: output) }
            return TextLogHandler(level: level, output: output)
        }
    }
}
