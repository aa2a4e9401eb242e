import FileSafety
import Foundation
import MoltbookAPI
import MoltipassEngine
import RateLimiting
import Storage
import Synchronization
import Telemetry

/// A run's metrics (`run --listen`, `run --once --metrics-textfile`): recorded from each pass's
/// report, from the API client's request observer, and, when the exposition is read, from the
/// state (limiter, pauses, leases). The engine itself records nothing: a pass costs what it
/// cost before, and `plan`, which has no telemetry, records nothing at all.
///
/// Labels stay bounded (`MetricLabel`): agents are the recipes' (a report line of another agent
/// is not counted), actions and outcomes closed sets read from the report line's start, classes
/// and pause kinds the code's enums, routes templates. Nothing recorded names a post, a URL, an
/// error's text or a key.
public final class RunTelemetry: Sendable {
    public let export: MetricsExport
    let recorder: MetricsRecorder
    private let state = Mutex(State())

    struct State {
        /// The agents the metrics may name (the recipes').
        var agents: Set<String> = []
        /// The agents whose state gauges were last set (to drop the series of one removed).
        var collected: Set<String> = []
        /// Held report lines of the last pass: one still held in the next is not counted again.
        var held: Set<String> = []
        /// The leases this runner held at the last reading of the state, with their expiry.
        var leasesUntil: [String: Date] = [:]
    }

    /// - Parameters:
    ///   - version: the build's version (`moltipass_build_info`).
    ///   - agents: the recipes' agents.
    public init(version: String, agents: [String], export: MetricsExport = MetricsExport()) {
        self.export = export
        recorder = MetricsRecorder(factory: export.factory)
        state.withLock { $0.agents = Set(agents) }
        recorder.set(MetricCatalog.buildInfo, [.version: version, .swift: Self.swiftVersion], to: 1)
        // Series that exist before their first event, so a rate() sees the first one.
        for limitClass in LimitClass.allCases {
            for metric in [MetricCatalog.rateLimited, MetricCatalog.hintWaits, MetricCatalog.hintWaitSeconds] {
                recorder.declare(metric, [.limitClass: limitClass.rawValue])
            }
        }
        for result in ChallengeResultLabel.allCases {
            recorder.declare(MetricCatalog.challenges, [.result: result.rawValue])
        }
        recorder.declare(MetricCatalog.passDuration)
    }

    /// The Swift compiler this binary was built with.
    static var swiftVersion: String {
        #if compiler(>=6.4)
            "6.4+"
        #elseif compiler(>=6.3)
            "6.3"
        #elseif compiler(>=6.2)
            "6.2"
        #else
            "6.1"
        #endif
    }

    /// The recipes changed (a reload): metrics name these agents from now on.
    public func setAgents(_ agents: [String]) {
        state.withLock { $0.agents = Set(agents) }
    }

    /// Records one pass: its report lines, its wall-clock duration and its start (the last tick).
    public func recordPass(_ report: RunReport, startedAt start: Date, duration: Duration) {
        recorder.observe(MetricCatalog.passDuration, duration: duration)
        recorder.set(MetricCatalog.lastTick, to: start.timeIntervalSince1970)
        let (agents, fresh) = state.withLock { state -> (Set<String>, Set<String>) in
            let identities = Set(report.items.filter { Self.outcome($0.outcome) == .held }.map(Self.identity))
            let fresh = identities.subtracting(state.held)
            state.held = identities
            return (state.agents, fresh)
        }
        for item in report.items where agents.contains(item.agent) {
            let outcome = Self.outcome(item.outcome)
            if outcome == .held, !fresh.contains(Self.identity(item)) { continue }
            let action = ActionLabel(reportAction: item.action)
            recorder.increment(
                MetricCatalog.actions, [.agent: item.agent, .action: action.rawValue, .outcome: outcome.rawValue])
            if let result = Self.challengeResult(item, action: action) {
                recorder.increment(MetricCatalog.challenges, [.result: result.rawValue])
            }
        }
    }

    static func outcome(_ outcome: RunReport.Item.Outcome) -> OutcomeLabel {
        switch outcome {
        case .done: .done
        case .failed: .failed
        case .uncertain: .uncertain
        case .skipped: .skipped
        case .deferred, .challenged: .held
        }
    }

    /// A held line's identity across passes: the same write held until the same instant.
    static func identity(_ item: RunReport.Item) -> String {
        [
            item.agent, item.recipe, item.job, item.action, item.key ?? "",
            item.until.map { "\($0.timeIntervalSince1970)" } ?? "", item.outcome.rawValue,
        ].joined(separator: "\u{1F}")
    }

    /// A line about a challenge: a write challenged (received), or a verify line's result.
    static func challengeResult(_ item: RunReport.Item, action: ActionLabel) -> ChallengeResultLabel? {
        if item.outcome == .challenged { return .received }
        guard action == .verify else { return nil }
        switch item.outcome {
        case .done: return .solved
        case .failed: return .failed
        case .uncertain: return .uncertain
        case .skipped: return .dropped
        case .deferred, .challenged: return nil
        }
    }

    /// The client's observer: each request's duration by method, route template and status
    /// class; a 429 and the waits the server's hints ask for, by limit class, on `clock`.
    public func requestObserver(clock: @escaping @Sendable () -> Date) -> RequestObserver {
        let recorder = recorder
        return { observation in
            recorder.observe(
                MetricCatalog.requestDuration,
                [
                    .method: observation.method.rawValue, .route: observation.route,
                    .statusClass: StatusClassLabel(status: observation.status).rawValue,
                ], duration: observation.duration)
            guard observation.status == 429 || observation.rateLimit.windowRemaining != nil else { return }
            for wait in RequestLimitClass.waits(observation, now: clock()) {
                let labels: [MetricLabel: String] = [.limitClass: wait.limitClass.rawValue]
                if wait.refused { recorder.increment(MetricCatalog.rateLimited, labels) }
                recorder.increment(MetricCatalog.hintWaits, labels)
                recorder.increment(MetricCatalog.hintWaitSeconds, labels, by: wait.seconds)
            }
        }
    }

    /// Sets the gauges the state holds, as of `now`: each agent's next allowed instant per limit
    /// class (as `status` computes it), its pauses by kind, and whether `holder` holds its lease.
    /// Series of agents no longer in the recipes are dropped. A state that does not answer leaves
    /// the values of the last reading (and the error is returned for the caller to log), but for
    /// the leases: one counts as held only until the expiry that reading showed, since a runner
    /// that cannot reach the state cannot renew it either (a runner cut off from PostgreSQL
    /// claimed the leases that others had long taken over, and the fleet's sum overcounted).
    ///
    /// The reading waits at most `wait` (`stateReadWait`): a state that answers late counts as
    /// one that does not. A scrape of a runner cut off from PostgreSQL waited for the statement's
    /// 15-s deadline, past Prometheus's scrape timeout, and the runner looked down while it was up
    /// and saying, in its other series, what was wrong.
    @discardableResult
    public func collectState(
        store: any StateStore, holder: String, now: Date, wait: Duration = RunTelemetry.stateReadWait
    ) async -> (any Error)? {
        let agents = state.withLock { $0.agents }.sorted()
        let read: ([(String, [AccountPause], Data?, Int)], [String: Date])
        do {
            let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
            read = try await Deadline.within(
                wait, expired: { StorageError(.unavailable, "the state did not answer within \(seconds) s") }
            ) {
                try await Self.readState(store: store, holder: holder, agents: agents, now: now)
            }
        } catch {
            let until = state.withLock { $0.leasesUntil }
            for agent in agents {
                recorder.set(MetricCatalog.leaseHeld, [.agent: agent], to: (until[agent] ?? .distantPast) > now ? 1 : 0)
            }
            return error
        }
        state.withLock { $0.leasesUntil = read.1 }
        for (agent, pauses, limiterData, unknown) in read.0 {
            recorder.set(MetricCatalog.writesUnknown, [.agent: agent], to: Double(unknown))
            let held = read.1[agent] != nil
            recorder.set(MetricCatalog.leaseHeld, [.agent: agent], to: held ? 1 : 0)
            let kinds = Set(pauses.map(\.kind))
            for kind in PauseKind.allCases {
                recorder.set(
                    MetricCatalog.paused, [.agent: agent, .kind: kind.rawValue], to: kinds.contains(kind) ? 1 : 0)
            }
            guard let limiter = limiterData.flatMap({ try? Limiter(serialized: $0) }) else { continue }
            for limitClass in LimitClass.allCases {
                let next = Self.nextAllowed(limiter, limitClass, at: now)
                recorder.set(
                    MetricCatalog.nextAllowed, [.agent: agent, .limitClass: limitClass.rawValue],
                    to: next.timeIntervalSince1970)
            }
        }
        let gone = state.withLock { state -> Set<String> in
            defer { state.collected = Set(agents) }
            return state.collected.subtracting(agents)
        }
        for agent in gone {
            recorder.remove(MetricCatalog.leaseHeld, [.agent: agent])
            recorder.remove(MetricCatalog.writesUnknown, [.agent: agent])
            for kind in PauseKind.allCases {
                recorder.remove(MetricCatalog.paused, [.agent: agent, .kind: kind.rawValue])
            }
            for limitClass in LimitClass.allCases {
                recorder.remove(MetricCatalog.nextAllowed, [.agent: agent, .limitClass: limitClass.rawValue])
            }
        }
        return nil
    }

    /// How long a scrape waits for the state: well inside Prometheus's default scrape timeout (10 s).
    public static let stateReadWait: Duration = .seconds(3)

    /// How long a scrape whose scraper waits `scrapeTimeout` waits for the state: half a second
    /// less than that, if that is shorter than `stateReadWait`, and at least 0.2 s.
    public static func stateReadWait(scrapeTimeout: Duration?) -> Duration {
        guard let scrapeTimeout else { return stateReadWait }
        return max(.milliseconds(200), min(stateReadWait, scrapeTimeout - .milliseconds(500)))
    }

    /// Each agent's pauses and limiter, and the leases `holder` holds live at `now` with their
    /// expiries, in one read.
    static func readState(store: any StateStore, holder: String, agents: [String], now: Date) async throws
        -> ([(String, [AccountPause], Data?, Int)], [String: Date])
    {
        try await store.read { reader in
            let held = try await reader.leases().filter { $0.holder == holder && $0.isLive(at: now) }
            var rows: [(String, [AccountPause], Data?, Int)] = []
            for agent in agents {
                rows.append(
                    (
                        agent, try await reader.activePauses(account: agent, at: now),
                        try await reader.limiterState(account: agent, key: "limiter"),
                        try await reader.uncertainJournalEntries(account: agent).filter(\.awaitsOperator).count
                    ))
            }
            return (rows, Dictionary(held.map { ($0.account, $0.expiresAt) }) { first, _ in first })
        }
    }

    /// When `limiter` next admits `limitClass`, as `status` shows it: a class without a rule of
    /// its own (vote, follow, subscribe) is bound by the write budget too; `now` when it admits now.
    static func nextAllowed(_ limiter: Limiter, _ limitClass: LimitClass, at now: Date) -> Date {
        let own = limiter.rules[limitClass] != nil
        let date = limiter.earliest(own ? [limitClass] : [limitClass, .write], at: now).date
        return max(date ?? now, now)
    }

    /// The exposition, after reading the state as of `now` for `holder`.
    public func exposition(
        store: any StateStore, holder: String, now: Date, wait: Duration = RunTelemetry.stateReadWait
    ) async -> String {
        await collectState(store: store, holder: holder, now: now, wait: wait)
        return export.exposition()
    }

    /// Writes the exposition to `path` atomically (a temp file in its directory, then a rename),
    /// mode 0644 so that node_exporter's textfile collector, another user, can read it.
    public func writeTextfile(_ path: String, store: any StateStore, holder: String, now: Date) async throws {
        let text = await exposition(store: store, holder: holder, now: now)
        try AtomicFile.write(Data(text.utf8), to: path, mode: 0o644)
    }
}
