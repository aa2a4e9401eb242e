import Determinism
import Foundation
import Keychain
import Logging
import MoltbookAPI
import MoltipassEngine
import Recipes
import Storage

/// Everything `moltipass run` needs, resolved from flags and environment: recipes, state store,
/// keychain, clock. The command itself only parses and calls this.
public struct RunSession: Sendable {
    public let recipes: [Recipe]
    public let store: any StateStore
    /// The state as `--state` named it (a file, or a PostgreSQL URL with no password).
    public let state: StateTarget
    /// The state file, or the PostgreSQL state's description (for messages).
    public var statePath: String { state.filePath ?? state.description }
    public let keys: KeysSession
    public let logger: Logger
    /// The wall clock, or a start plus monotonic elapsed time times the scale (`--now`,
    /// `--time-scale`: tests and demos).
    public let clock: @Sendable () -> Date
    /// `--time-scale`: how many times faster than real time `clock` runs. Every real wait of the
    /// run loop is a virtual duration divided by it, so waits and virtual time agree.
    public let timeScale: TimeScale
    /// `--journal-retention`: how long done journal entries are kept.
    public var journalRetention = JournalRetention.keep(Runner.Configuration.defaultJournalRetention)
    /// `--listen`, `--metrics-textfile`: the run's metrics (each pass and each request recorded);
    /// nil records nothing.
    public var telemetry: RunTelemetry?
    /// `--lease-ttl`: how long an agent's lease lasts without renewal (docs/deploy.md, "Sizing
    /// the lease"): a dead runner's agents are taken over this long after its last renewal.
    public var leaseTTL: TimeInterval = Runner.Configuration.defaultLeaseTTL

    /// Loads every recipe it can: the valid ones, and the diagnostics of the others (issue 19:
    /// one invalid file no longer stops every agent; it is reported and skipped). A recipe whose
    /// job clashes with an earlier one's (`RecipeSet.conflicts`) counts as invalid.
    public static func loadValidRecipes(_ paths: [String]) -> (recipes: [Recipe], invalid: [Diagnostic]) {
        var recipes: [Recipe] = []
        var invalid: [Diagnostic] = []
        for path in RecipePaths.expand(paths) {
            switch RecipeLoader.load(path: path) {
            case .success(let recipe): recipes.append(recipe)
            case .failure(let diagnostics): invalid += diagnostics.sorted().items
            }
        }
        // A recipe whose job another recipe already claims is skipped with the clash named.
        RecipeSet.assignIdentities(&recipes)
        let clashes = RecipeSet.conflicts(recipes)
        let clashing = Set(clashes.map(\.file))
        return (recipes.filter { !clashing.contains($0.file) }, invalid + clashes)
    }

    /// Loads and validates every recipe (a directory: its `*.yaml`/`*.yml` files, `RecipePaths`);
    /// all diagnostics of all files when any is invalid.
    public static func loadRecipes(_ paths: [String]) -> Result<[Recipe], Diagnostics> {
        let (recipes, invalid) = loadValidRecipes(paths)
        return invalid.isEmpty ? .success(recipes) : .failure(Diagnostics(invalid))
    }

    /// `now`: the clock's start (else the wall clock's now); `timeScale`: its speed. With neither,
    /// the clock is the wall clock. `started`: when the command began, the instant `now` names
    /// (else the clock starts at `now` once the store is open): opening a store takes a varying
    /// while (PostgreSQL: a connection and its migrations), and runners given the same `--now`
    /// at the same moment must agree on the time, or at a scaled clock their difference comes
    /// off every cooldown when an agent moves from one to another.
    public init(
        recipes: [Recipe], state: StateTarget, keys: KeysSession, logger: Logger, now: Date?,
        timeScale: TimeScale = .realTime, started: ContinuousClock.Instant? = nil
    ) async throws {
        // The store creates a missing directory (0700; a bare file name lives in the working
        // directory), with failures in plain words.
        self.recipes = recipes
        self.state = state
        self.store = try await state.open(logger: logger)
        self.keys = keys
        self.logger = logger
        self.timeScale = timeScale
        if now != nil || timeScale != .realTime {
            var start = now ?? Date()
            if now != nil, let started {
                let lag = started.duration(to: .now)
                let seconds = Double(lag.components.seconds) + Double(lag.components.attoseconds) * 1e-18
                start.addTimeInterval(seconds * timeScale.factor)
            }
            let scaled = SettableClock(start: start, scale: timeScale.factor)
            clock = { scaled.now }
        } else {
            clock = { Date() }
        }
    }

    /// The real seconds to sleep for a wait of `virtual` seconds on `clock`.
    public func realSeconds(_ virtual: TimeInterval) -> TimeInterval { timeScale.realSeconds(virtual) }

    /// The engine over these recipes; the keychain is unlocked on the first request that needs a key.
    /// `recipes`: these instead of the session's (the daemon after a reload). The one place a
    /// `Runner` is configured from the command line, so every flag reaches both modes.
    public func runner(
        holder: String, releaseLeases: Bool, environment: [String: String], recipes: [Recipe]? = nil,
        generator: (any TextGenerating)? = nil, stopRequested: (@Sendable () -> Bool)? = nil
    ) -> Runner {
        var configuration = Runner.Configuration(holder: holder)
        configuration.generator = generator
        configuration.stopRequested = stopRequested
        configuration.releaseLeases = releaseLeases
        // The daemon spreads the agents over the daemons sharing its state; a cron run takes
        // whatever lease it can.
        configuration.spreadAgents = !releaseLeases
        configuration.leaseTTL = leaseTTL
        configuration.leaseClock = clock
        configuration.environment = environment
        configuration.journalRetention = journalRetention.seconds
        let keys = keys
        let logger = logger
        let observer = telemetry?.requestObserver(clock: clock)
        return Runner(recipes: recipes ?? self.recipes, store: store, configuration: configuration, logger: logger) {
            agent, baseURL in
            let (entry, key) = try keys.entryAndKey(agent)
            return try KeysEndpoint.client(
                baseURL: baseURL ?? entry.metadata.baseURL, apiKey: key, logger: logger, observer: observer)
        }
    }

    /// `run --once`: one pass; if the only thing left is a deferral within `maxWait`, wait for
    /// it and pass again (bounded), so a cron run finishes what it can. Texts being generated
    /// (issue 21) are waited for, each bounded by its step's `timeout:`, and passed again for.
    public func runOnce(maxWait: TimeInterval, environment: [String: String]) async -> RunReport {
        let holder = LeaseHolder.make("once")
        let generator = generationService(environment: environment)
        let runner = runner(holder: holder, releaseLeases: true, environment: environment, generator: generator)
        let deadline = clock().addingTimeInterval(maxWait)
        var report = await pass(runner)
        // `--max-wait` means what it says (issue 33, observation 3: the loop stopped after its
        // 20th pass with writes due 55 s later). It passes again while deferred writes fall due
        // before the deadline; only a pass whose next instant has already come, twice over
        // without anything done, ends it early (nothing would change by passing at once again).
        // Generated texts are waited for while generators run, at most `maxGenerationRounds`.
        var idleRepeats = 0
        var generationRounds = 0
        while report.authBroken.isEmpty, report.locked.isEmpty {
            if report.generationsPending > 0, generationRounds < Self.maxGenerationRounds {
                generationRounds += 1
                await generator.waitUntilIdle()
            } else if let next = report.nextDue, next <= deadline, report.count(.deferred) > 0 {
                let wait = realSeconds(next.timeIntervalSince(clock()))
                if wait > 0 {
                    idleRepeats = 0
                    try? await Task.sleep(for: .milliseconds(Int(wait * 1000) + 10))
                } else {
                    idleRepeats += 1
                    if idleRepeats > 2 { break }
                }
            } else {
                break
            }
            let again = await pass(runner)
            report = Self.merge(report, again)
        }
        return report
    }

    /// Rounds of waiting for generated texts in one `run --once` (a generator that starts a new
    /// text on every pass cannot hold the run for ever).
    static let maxGenerationRounds = 20

    /// One pass of `runner` now, recorded in the telemetry.
    func pass(_ runner: Runner) async -> RunReport {
        let (started, began) = (clock(), ContinuousClock.now)
        let report = await runner.pass(now: started)
        telemetry?.recordPass(report, startedAt: started, duration: ContinuousClock.now - began)
        return report
    }

    /// The later pass's items, after the earlier pass's: a deferral of the earlier pass is
    /// replaced only by a later item about the same thing (its journal key, else its agent, job,
    /// step and action), never dropped because the later pass said nothing of it (issue 33,
    /// observation 3: deferred selections of 14 of 20 agents vanished from the report).
    static func merge(_ first: RunReport, _ second: RunReport) -> RunReport {
        var merged = second
        let later = Set(second.items.map(identity))
        merged.items = first.items.filter { $0.outcome != .deferred || !later.contains(identity($0)) } + second.items
        merged.generationFailures += first.generationFailures
        return merged
    }

    /// What a report item is about, across passes.
    static func identity(_ item: RunReport.Item) -> String {
        item.key
            ?? [item.agent, item.recipe, item.job, item.step.map(String.init) ?? "", item.action].joined(separator: "|")
    }
}
