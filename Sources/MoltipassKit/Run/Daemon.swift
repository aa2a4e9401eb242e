import Foundation
import Logging
import Recipes

/// `moltipass run` without `--once`: pass, sleep until the next due instant, repeat.
///
/// - Sleeps until the earliest of: the next occurrence, the next deferred action, half the
///   lease time (to renew it) — never polls.
/// - SIGTERM/SIGINT: the current pass finishes (an in-flight request completes or times out and
///   is journaled), leases are released, exit 0.
/// - SIGHUP: reloads the recipe files; a broken reload keeps the old recipes and logs why.
public struct Daemon: Sendable {
    public let session: RunSession
    public let recipePaths: [String]
    public let environment: [String: String]

    public init(session: RunSession, recipePaths: [String], environment: [String: String]) {
        self.session = session
        self.recipePaths = recipePaths
        self.environment = environment
    }

    public func run(signals: SignalWaiter) async -> ExitStatus {
        let holder = LeaseHolder.make("daemon")
        var recipes = session.recipes
        var runner = makeRunner(recipes, holder: holder)
        let logger = session.logger
        var reportLogger = ReportLogger(logger: logger, store: session.store, repeatDeferrals: false)
        logger.info("daemon started", metadata: ["recipes": "\(recipes.count)", "holder": "\(holder)"])
        while true {
            let started = session.clock()
            let report = await runner.pass(now: started)
            await reportLogger.log(report, since: started)
            if signals.stopRequested { break }
            let now = session.clock()
            let leaseRenewal = now.addingTimeInterval(runner.configuration.leaseTTL / 2)
            let wake = min(report.nextDue ?? leaseRenewal, leaseRenewal)
            logger.debug("sleeping", metadata: ["until": "\(wake)"])
            switch await signals.wait(seconds: max(0.05, wake.timeIntervalSince(now))) {
            case .deadline:
                continue
            case .terminate:
                break
            case .reload:
                switch RunSession.loadRecipes(recipePaths) {
                case .success(let reloaded):
                    recipes = reloaded
                    runner = makeRunner(recipes, holder: holder)
                    logger.info("recipes reloaded", metadata: ["recipes": "\(recipes.count)"])
                case .failure(let diagnostics):
                    logger.error("reload failed; keeping the previous recipes", metadata: ["why": "\(diagnostics)"])
                }
                continue
            }
            break
        }
        await runner.releaseAll()
        logger.info("daemon stopped")
        return .ok
    }

    func makeRunner(_ recipes: [Recipe], holder: String) -> Runner {
        var configuration = Runner.Configuration(holder: holder)
        configuration.releaseLeases = false
        configuration.environment = environment
        let base = session.runner(holder: holder, releaseLeases: false, environment: environment)
        return Runner(
            recipes: recipes, store: base.store, configuration: configuration, logger: session.logger,
            makeClient: base.makeClient)
    }
}
