import Determinism
import Foundation
import Logging
import MoltipassEngine
import Recipes
import Telemetry

/// `moltipass run` without `--once`: pass, sleep until the next due instant, repeat.
///
/// - Sleeps until the earliest of: the next occurrence, the next deferred action, half the
///   lease time (to renew it) — never polls. Instants are on the session's clock; with
///   `--time-scale N` the real sleep is the virtual wait divided by N.
/// - SIGTERM/SIGINT: the current agent's turn finishes (an in-flight request completes or times
///   out and is journaled) and the pass ends there, generator programs still running are ended (SIGTERM to their process
///   groups, SIGKILL 2 s later; their texts were never journaled), leases are released, exit 0.
/// - SIGHUP: reloads the recipe files; a broken reload keeps the old recipes and logs why.
/// - `listen` (`run --listen`): serves `/metrics`, `/healthz` and `/readyz` there from the start
///   (before the start-up check) until it stops; after SIGTERM `/readyz` says it is shutting down.
public struct Daemon: Sendable {
    public let session: RunSession
    public let recipePaths: [String]
    public let environment: [String: String]
    /// Recipe files skipped at start (invalid, or missing what they need here): named by
    /// `status --health` until a reload fixes them.
    public var startupProblems: [HealthProblem]
    /// `--listen`: where to serve metrics and probes (the session's telemetry); nil for nowhere.
    public var listen: ListenAddress?

    public init(
        session: RunSession, recipePaths: [String], environment: [String: String],
        startupProblems: [HealthProblem] = []
    ) {
        self.session = session
        self.recipePaths = recipePaths
        self.environment = environment
        self.startupProblems = startupProblems
    }

    /// Invalid recipe files as health problems, one per file (its first diagnostic); a file in `kept` runs on in
    /// its previous version (a reload) and says so.
    public static func problems(invalid: [Diagnostic], kept: Set<String> = []) -> [HealthProblem] {
        var seen: Set<String> = []
        return invalid.compactMap { diagnostic in
            guard seen.insert(diagnostic.file).inserted else { return nil }
            let what =
                kept.contains(diagnostic.file)
                ? "the file is not reloaded: its previous version keeps running until it is fixed"
                : "the file is skipped; the other recipes run"
            return HealthProblem(kind: "invalid_recipe", message: "\(diagnostic.description) (\(what))")
        }
    }

    /// The recipes after a reload: every valid file's new version, and the previous version of each file that is
    /// broken now (issue 34: a typo in one file must not stop its agents; a file removed from disk stops).
    static func reloaded(previous: [Recipe], runnable: [Recipe], invalid: [Diagnostic]) -> (
        recipes: [Recipe], kept: Set<String>
    ) {
        let broken = Set(invalid.map(\.file))
        let kept = previous.filter { broken.contains($0.file) }
        return (runnable + kept, Set(kept.map(\.file)))
    }

    public func run(signals: SignalWaiter) async -> ExitStatus {
        let holder = LeaseHolder.make("daemon")
        var recipes = session.recipes
        // Texts are generated in the background: a ready one wakes the daemon for a pass at once.
        let generator = session.generationService(environment: environment) { signals.wake() }
        var runner = makeRunner(recipes, holder: holder, generator: generator, signals: signals)
        let logger = session.logger
        let telemetry = session.telemetry
        let probes = RunnerProbes()
        var listener: ProbeServer?
        if let listen, let telemetry {
            let source = DaemonProbeSource(
                telemetry: telemetry, probes: probes, store: session.store, holder: holder, clock: session.clock)
            do {
                listener = try await ProbeServer.start(at: listen, source: source) { event in
                    switch event {
                    case .stopped(let url, let reason):
                        logger.error(
                            "the listener on \(url) stopped: \(reason); listening again on the same address",
                            metadata: ["event": "listen", "url": "\(url)"])
                    case .listeningAgain(let url):
                        logger.notice("listening again on \(url)", metadata: ["event": "listen", "url": "\(url)"])
                    }
                }
            } catch {
                logger.critical("\(error)", metadata: ["event": "listen"])
                return .failure
            }
            signals.onStop { probes.drain() }
            logger.notice(
                "listening on \(listener?.url ?? "") (/metrics, /healthz, /readyz)",
                metadata: ["event": "listen", "url": "\(listener?.url ?? "")"])
        }
        var reportLogger = ReportLogger(logger: logger, store: session.store, repeatDeferrals: false)
        logger.info("daemon started", metadata: ["recipes": "\(recipes.count)", "holder": "\(holder)"])
        var health = HealthTracker(holder: holder, recipeProblems: startupProblems)
        let preflight = await health.check(runner, at: session.clock(), store: session.store, logger: logger)
        if listener != nil { await checkProbes(probes, preflight, health: health, pass: false) }
        while true {
            let started = session.clock()
            probes.beat()
            let began = ContinuousClock.now
            let report = await runner.pass(now: started)
            telemetry?.recordPass(report, startedAt: started, duration: ContinuousClock.now - began)
            await reportLogger.log(report, since: started)
            await health.update(with: report, at: session.clock(), store: session.store)
            if listener != nil { await checkProbes(probes, report, health: health, pass: true) }
            if signals.stopRequested { break }
            let now = session.clock()
            let leaseRenewal = now.addingTimeInterval(runner.configuration.leaseTTL / 2)
            let wake = min(report.nextDue ?? leaseRenewal, leaseRenewal)
            logger.debug("sleeping", metadata: ["until": "\(wake)"])
            switch await signals.wait(seconds: Self.realWait(until: wake, from: now, scale: session.timeScale)) {
            case .deadline:
                continue
            case .terminate:
                break
            case .reload:
                let (valid, invalid) = RunSession.loadValidRecipes(recipePaths)
                let (runnable, local) = LocalChecks.split(valid, environment: environment)
                let (next, kept) = Self.reloaded(previous: recipes, runnable: runnable, invalid: invalid)
                let problems = Self.problems(invalid: invalid, kept: kept) + local
                guard !runnable.isEmpty else {
                    logger.error(
                        "reload failed; keeping the previous recipes (no recipe in the reload can run)",
                        metadata: ["why": "\(problems.map(\.text).joined(separator: "; "))"])
                    continue
                }
                for problem in problems {
                    logger.error("recipe skipped", metadata: ["why": "\(problem.text)", "kind": "\(problem.kind)"])
                }
                recipes = next
                runner = makeRunner(recipes, holder: holder, generator: generator, signals: signals)
                telemetry?.setAgents(runner.agents)
                logger.info(
                    "recipes reloaded",
                    metadata: [
                        "recipes": .stringConvertible(recipes.count), "kept_previous": .stringConvertible(kept.count),
                    ])
                health.recipeProblems = problems
                let check = await health.check(runner, at: session.clock(), store: session.store, logger: logger)
                if listener != nil { await checkProbes(probes, check, health: health, pass: false) }
                continue
            }
            break
        }
        // A program still writing a text leads a process group of its own, out of reach of the
        // signal that stopped us: ended here, or it would outlive the daemon (for good, if it hangs).
        probes.drain()
        await generator.stop()
        await runner.releaseAll()
        await health.remove(store: session.store)
        await listener?.stop()
        logger.info("daemon stopped")
        return .ok
    }

    /// Updates the probes after a pass (or the start-up check, which does not count as one):
    /// whether the store answers, and the key problems (`RunnerProbes.check`).
    func checkProbes(_ probes: RunnerProbes, _ report: RunReport, health: HealthTracker, pass: Bool) async {
        let (storeProblem, keyProblems) = await RunnerProbes.check(
            report, health: health.problems, store: session.store, now: session.clock())
        probes.passed(storeProblem: storeProblem, keyProblems: keyProblems, countsAsPass: pass)
    }

    /// The real seconds to sleep from `now` until `wake` on a clock running `scale` times real
    /// time: the virtual wait, at least 50 ms so that a due instant already reached does not spin,
    /// divided by the scale, and at least 5 ms at any scale (at scale 1: the wait, at least 50 ms).
    static func realWait(until wake: Date, from now: Date, scale: TimeScale) -> TimeInterval {
        max(0.005, scale.realSeconds(max(0.05, wake.timeIntervalSince(now))))
    }

    /// The daemon's runner over `recipes`: the session's configuration (`--journal-retention`
    /// included: a second hand-built configuration once dropped it), leases kept between passes.
    func makeRunner(_ recipes: [Recipe], holder: String, generator: GenerationService, signals: SignalWaiter)
        -> Runner
    {
        session.runner(
            holder: holder, releaseLeases: false, environment: environment, recipes: recipes, generator: generator,
            stopRequested: { signals.stopRequested })
    }
}
