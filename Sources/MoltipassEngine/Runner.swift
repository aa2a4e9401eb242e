import Foundation
import Logging
import MoltbookAPI
import RateLimiting
import Recipes
import Storage
import Synchronization

/// The engine: one `pass(now:)` plans what is due, journals it, and sends what the limiter
/// admits. The caller owns the clock (`run --once`, the daemon loop, `plan`, tests).
///
/// Per account, in order:
/// 1. take the account's lease (another holder → `locked`, nothing done);
/// 2. plan each job's due occurrences, expand their steps into writes, and record every write's
///    intent together with the job's cursor and queue positions in one transaction;
/// 3. drain the account's pending journal entries: reconcile uncertain ones by reading back,
///    then send each through the limiter, recording `sent` before and the outcome after.
public final class Runner: Sendable {
    /// Makes the client of an agent; called only when a request is actually due (the keychain
    /// is unlocked lazily).
    public typealias ClientFactory = @Sendable (_ agent: String, _ baseURL: String?) async throws -> MoltbookClient

    public struct Configuration: Sendable {
        /// This process, for leases and heartbeats.
        public var holder: String
        public var leaseTTL: TimeInterval = Self.defaultLeaseTTL
        /// Ten minutes: two skipped cron runs at a five-minute interval.
        public static let defaultLeaseTTL: TimeInterval = 600
        /// Release leases at the end of a pass (`run --once`); the daemon keeps and renews them.
        public var releaseLeases = true
        /// Spread the agents over the live daemons sharing the state (`FleetAssignment`): the
        /// daemon does; `run --once`, `plan` and tests of one runner do not.
        public var spreadAgents = false
        /// The run loop's clock, which dates the lease renewals inside a pass (`AccountPass+Fence`):
        /// each transaction that records a write extends the lease from the instant it commits,
        /// so a long pass (slow requests, a challenge, a generator) keeps its agent. It also dates
        /// each agent's turn: a pass over hundreds of agents lasts minutes, and an agent whose
        /// writes were charged to the limiter at the pass's start would have them charged early,
        /// its next post sent as early before the server's cooldown ended (`fleet-check` saw
        /// 429s from a runner that drove 100 agents). Nil (`plan`, tests on a fixed clock): the
        /// pass's `now` for everything.
        public var leaseClock: (@Sendable () -> Date)?
        /// Whether the process was asked to stop (the daemon's SIGTERM): asked before each agent's
        /// turn, so that a pass over hundreds of agents ends after the current one instead of
        /// keeping a terminating pod (and its grace period) for minutes. Nil: never.
        public var stopRequested: (@Sendable () -> Bool)?
        /// Environment visible to templates (only names a recipe whitelists are read).
        public var environment: [String: String] = [:]
        /// Longest gap between ticks that still counts as "the runner was alive".
        public var maxGap: TimeInterval = 3_600
        /// Whether a lease holder is a process that no longer exists (its lease is taken over
        /// instead of waited out); `LeaseHolder.isDeadLocalProcess` by default.
        public var isDeadHolder: @Sendable (String) -> Bool = LeaseHolder.isDeadLocalProcess
        /// How long a done journal entry is kept (nil: for ever). Without a limit the state
        /// file grows by every write's rendered payload for as long as the agent runs. What
        /// dedup needs survives pruning: the desired-state facts stay (one small row per target
        /// acted on), and so do pending and finally failed entries. 90 days by default, long
        /// enough for `status` and for reading a quarter's history with `sqlite3`.
        public var journalRetention: TimeInterval? = Self.defaultJournalRetention

        public static let defaultJournalRetention: TimeInterval = 90 * 86_400

        /// Every recipe the caller knows, when it runs a pass over a part of them (`plan --live`
        /// plans one job a pass): a waiting write of a job among these is not orphaned. Nil: the
        /// runner's own recipes.
        public var knownRecipes: [Recipe]?

        /// Writes the text of `generate:` steps (issue 21): `GenerationService` for runs, a
        /// placeholder for `plan`. Nil: such steps fail with the reason.
        public var generator: (any TextGenerating)?

        /// Measures the machine's share of each pass (benchmarks only; `PassCostMeter`).
        public var meter: PassCostMeter?
        /// Whether each agent's server is recorded and a recipe pointing its name at another
        /// server is refused (`AccountPass.serverConflict`); off for `plan`, whose simulated
        /// server stands in for the real one.
        public var checksServer = true
        /// Whether a pass that plans a post or comment first reads what the server shows the
        /// agent published lately (`AccountPass.refreshFromServer`): another state file, runner
        /// or person may have posted for it. Off for `plan`, whose simulated server has no other
        /// writer.
        public var refreshesServerRecord = true

        public init(holder: String) { self.holder = holder }

        /// The cut-off of a pass at `now`: entries created before it are pruned. Rounded down
        /// to a UTC midnight, so the cut moves once a day and every pass in between finds
        /// nothing to delete (one index seek) instead of a few rows each time.
        public func journalCutOff(at now: Date) -> Date? {
            guard let journalRetention else { return nil }
            let cut = (now.timeIntervalSince1970 - journalRetention) / 86_400
            return Date(timeIntervalSince1970: cut.rounded(.down) * 86_400)
        }
    }

    public let recipes: [Recipe]
    /// Each agent's recipes and jobs, made once (`AccountPass` reads them every pass).
    let recipesByAgent: [String: [Recipe]]
    let jobsByAgent: [String: [JobRef]]
    public let store: any StateStore
    public let configuration: Configuration
    let makeClient: ClientFactory
    let logger: Logger
    /// Each account's limiter as last stored, with its bytes: a pass whose stored bytes are
    /// these takes the value instead of decoding it again (equal bytes, equal limiter).
    let decodedLimiters = Mutex<[String: (bytes: Data, limiter: Limiter)]>([:])
    /// Each account's content-ledger sightings as of its last pass (`contentSightings`).
    let ledgerSightings = Mutex<[String: LedgerSightings]>([:])
    /// Agents of the fleet seen driven by no runner, since when (`agentsToDrive`).
    let unheld = Mutex<[String: Date]>([:])
    /// The instant of this runner's first pass (its heartbeat's `startedAt`).
    private let firstPass = Mutex<Date?>(nil)
    var startedAt: Date { firstPass.withLock { $0 } ?? .distantPast }

    /// The sent part of an account's duplicate-guard sightings, kept between passes.
    struct LedgerSightings: Sendable {
        /// The newest sighting of each exact fingerprint.
        private(set) var sightings: [String: ContentSighting] = [:]
        /// Each sketched text once (its number is its place here): fingerprint and sketch.
        private(set) var sketched: [(fingerprint: String, sketch: [UInt32])] = []
        /// The numbers of the sketched texts that have this hash in their band
        /// (`ContentFingerprint.nearDuplicateBand(count:)`): a near-duplicate shares a hash of
        /// both bands with the text it repeats, so a new text is compared with these only, and
        /// by their sketches alone (a month of an agent's texts is ~1,700).
        private(set) var near: [UInt32: [Int32]] = [:]
        /// The newest record read: the next pass reads from here.
        var through = Date.distantPast
        /// The ledger's generation when read (`PendingWrites.ledgerGenerationKey`).
        var generation: Data?
        /// When sightings older than the window were last dropped.
        var compactedAt = Date.distantPast

        init(generation: Data? = nil) { self.generation = generation }

        mutating func add(_ record: ContentRecord) {
            through = max(through, record.recordedAt)
            let earlier = sightings[record.fingerprint]
            guard record.recordedAt >= earlier?.at ?? .distantPast else { return }
            // The sketch is parsed once, here: the sightings live as long as the runner, and a
            // long text is compared with its candidates on every pass that plans one.
            let sketch = record.signature.isEmpty ? [] : ContentFingerprint.sketch(from: record.signature) ?? []
            sightings[record.fingerprint] = ContentSighting(
                kind: record.kind, at: record.recordedAt, journalKey: record.journalKey, excerpt: record.excerpt,
                sent: true, sketch: sketch, signature: record.signature)
            // The same text has the same sketch: indexed once (unless the earlier had none).
            if earlier?.sketch.isEmpty ?? true { index(record.fingerprint, sketch) }
        }

        /// Drops sightings older than `earliest`, at most once a day of the ledger's time.
        mutating func compact(before earliest: Date) {
            guard earliest.timeIntervalSince(compactedAt) >= 86_400 else { return }
            sightings = sightings.filter { $0.value.at >= earliest }
            (sketched, near) = ([], [:])
            for (fingerprint, sighting) in sightings { index(fingerprint, sighting.sketch) }
            compactedAt = earliest
        }

        private mutating func index(_ fingerprint: String, _ sketch: [UInt32]) {
            guard !sketch.isEmpty else { return }
            let number = Int32(sketched.count)
            sketched.append((fingerprint, sketch))
            for hash in sketch.prefix(ContentFingerprint.nearDuplicateBand(count: sketch.count)) {
                near[hash, default: []].append(number)
            }
        }
    }

    public init(
        recipes: [Recipe], store: any StateStore, configuration: Configuration, logger: Logger,
        makeClient: @escaping ClientFactory
    ) {
        // Identities as `run` assigns them (a job id shared within an agent: file names), for
        // callers that load recipes themselves; recipes already assigned keep theirs.
        var recipes = recipes
        RecipeSet.assignIdentities(&recipes)
        self.recipes = recipes
        recipesByAgent = Dictionary(grouping: recipes, by: \.agent.value)
        jobsByAgent = recipesByAgent.mapValues(JobRef.all)
        self.store = store
        self.configuration = configuration
        self.makeClient = makeClient
        self.logger = logger
    }

    /// How `agent` answers verification challenges (its recipes' `challenge:` block, or the defaults).
    func challengePolicy(for agent: String) -> ChallengePolicy {
        ChallengePolicy.forAgent(agent, in: recipes)
    }

    /// The agents the recipes name, sorted.
    public var agents: [String] { Array(Set(recipes.map(\.agent.value))).sorted() }

    /// One pass at `now`.
    public func pass(now: Date) async -> RunReport {
        var report = RunReport()
        firstPass.withLock { $0 = $0 ?? now }
        let drive = await agentsToDrive(now: now, report: &report)
        for (index, agent) in drive.enumerated() {
            if index > 0, configuration.stopRequested?() == true {
                // The agents left keep their leases until the daemon releases them on its way out.
                logger.notice(
                    "asked to stop; the pass ends without its remaining agents",
                    metadata: ["left": "\(drive.count - index)"])
                break
            }
            let turn = max(now, configuration.leaseClock?() ?? now)
            let failures = report.transientFailures
            await AccountPass(runner: self, agent: agent, now: turn).run(into: &report)
            guard report.transientFailures > failures, index + 1 < drive.count,
                let reason = await storeUnreachable(agent: agent)
            else { continue }
            // The rest of the pass would meet the same store, each agent waiting out its deadline
            // in turn (a runner cut off from PostgreSQL mid-pass spent its remaining agents'
            // minutes so, logging nothing and deaf to SIGTERM): the pass ends here, and the next,
            // a minute on, tries again.
            logger.error(
                "the state store does not answer; the pass ends without its remaining agents",
                metadata: ["left": "\(drive.count - index - 1)", "error": "\(reason)"])
            report.transientFailures += 1
            report.due(at: turn.addingTimeInterval(60))
            break
        }
        report.includeDeferrals()
        return report
    }

    /// After an agent's turn that failed transiently: whether the store is out of reach (a
    /// read of one row that fails as `unavailable`: the connection lost, or past its deadline),
    /// and why; nil when it answers or failed otherwise.
    func storeUnreachable(agent: String) async -> StorageError? {
        do {
            _ = try await store.read { try await $0.lease(account: agent) }
            return nil
        } catch let error as StorageError where error.code == .unavailable {
            return error
        } catch {
            return nil
        }
    }

    /// The daemon's start-up check at `now` (`AccountPass.preflight`): every agent's key
    /// unlocked and read back once; nothing planned or sent.
    public func preflight(now: Date) async -> RunReport {
        var report = RunReport()
        for agent in agents {
            await AccountPass(runner: self, agent: agent, now: now).preflight(into: &report)
        }
        return report
    }

    /// Gives up every lease this process holds (daemon shutdown).
    public func releaseAll() async {
        for agent in agents {
            _ = try? await store.releaseLease(account: agent, holder: configuration.holder)
        }
        _ = try? await store.transaction { [holder = configuration.holder] in
            try await $0.removeHeartbeat(holder: holder)
        }
    }
}
