import Foundation
import MoltipassEngine
import Storage
import Synchronization
import Telemetry

/// What the daemon's `/healthz` and `/readyz` say (`run --listen`).
///
/// - **Liveness** (`/healthz`): the run loop is alive: it began or ended a pass within
///   `maxTickAge` of real time (it does at least every half lease time, whatever its agents'
///   health), or it started that recently. A loop stuck in a pass fails it; a restart fixes that.
/// - **Readiness** (`/readyz`): the runner can do its work: its first pass ended, the state store
///   answered after the last pass, every agent's key is usable, and it is not shutting down. A
///   key problem is reported in `status --health`'s words (`keychain`, a `key_refused` or
///   `auth_breaker` pause, `unclaimed`), from the same records.
public final class RunnerProbes: Sendable {
    /// The longest time without a pass starting or ending that still counts as alive (the
    /// default of `status --health --max-tick-age`).
    public static let defaultMaxTickAge: Duration = .seconds(15 * 60)

    struct State {
        var lastBeat: ContinuousClock.Instant
        var passes = 0
        var storeProblem: String?
        var keyProblems: [HealthProblem] = []
        var draining = false
    }

    let maxTickAge: Duration
    private let state: Mutex<State>

    public init(maxTickAge: Duration = RunnerProbes.defaultMaxTickAge, started: ContinuousClock.Instant = .now) {
        self.maxTickAge = maxTickAge
        state = Mutex(State(lastBeat: started))
    }

    /// The loop began or ended a pass at `instant`.
    func beat(at instant: ContinuousClock.Instant = .now) {
        state.withLock { $0.lastBeat = max($0.lastBeat, instant) }
    }

    /// A pass (or, not `countsAsPass`, the start-up check) ended: what the store and the keys
    /// looked like after it.
    func passed(
        storeProblem: String?, keyProblems: [HealthProblem], countsAsPass: Bool = true,
        at instant: ContinuousClock.Instant = .now
    ) {
        state.withLock {
            $0.lastBeat = max($0.lastBeat, instant)
            if countsAsPass { $0.passes += 1 }
            $0.storeProblem = storeProblem
            $0.keyProblems = keyProblems
        }
    }

    /// SIGTERM: the runner finishes its pass and stops; not ready from now on.
    func drain() {
        state.withLock { $0.draining = true }
    }

    /// `/healthz` at `instant`.
    func liveness(at instant: ContinuousClock.Instant = .now) -> ProbeStatus {
        let last = state.withLock { $0.lastBeat }
        let age = instant - last
        guard age > maxTickAge else { return .healthy }
        return .failing(
            "the run loop has not started or ended a pass for \(Self.seconds(age)) s (limit \(Self.seconds(maxTickAge)) s): "
                + "it is stuck")
    }

    /// `/readyz`: every reason it is not ready, in one line.
    func readiness() -> ProbeStatus {
        let state = state.withLock { $0 }
        var reasons: [String] = []
        if state.draining { reasons.append("shutting down: the runner is finishing its pass and releasing its agents") }
        if state.passes == 0, !state.draining { reasons.append("starting: the first pass has not ended yet") }
        if let problem = state.storeProblem { reasons.append(problem) }
        reasons += state.keyProblems.map(\.text)
        return reasons.isEmpty ? .healthy : .failing(reasons.joined(separator: "; "))
    }

    static func seconds(_ duration: Duration) -> Int { Int(duration.components.seconds) }

    /// The pause kinds that mean a key cannot be used: the server refused it, or writes are
    /// refused while reads work (the auth breaker).
    static let keyPauseKinds: Set<String> = [PauseKind.keyRefused.rawValue, PauseKind.authBreaker.rawValue]

    /// After a pass: whether the store answers (one read, which also fetches the pauses of the
    /// agents whose key the report says is broken), and every key problem in `status --health`'s
    /// words: the daemon's keychain record (`health`), the pauses of a refused key or of the auth
    /// breaker, an unclaimed agent, and any other refusal the report names.
    static func check(
        _ report: RunReport, health: [HealthProblem], store: any StateStore, now: Date
    ) async -> (storeProblem: String?, keyProblems: [HealthProblem]) {
        var suspects = Set(report.authBroken.keys).union(report.unclaimed)
        for (agent, kinds) in report.pauseKinds where !keyPauseKinds.isDisjoint(with: kinds) { suspects.insert(agent) }
        let agents = suspects.sorted()
        let pauses: [String: [AccountPause]]
        do {
            pauses = try await store.read { reader in
                _ = try await reader.heartbeats()
                var result: [String: [AccountPause]] = [:]
                for agent in agents { result[agent] = try await reader.activePauses(account: agent, at: now) }
                return result
            }
        } catch {
            return ("the state store did not answer: \(error)", health.filter { $0.kind == "keychain" })
        }
        var problems = health.filter { $0.kind == "keychain" }
        for agent in agents {
            let keyPauses = (pauses[agent] ?? []).filter { keyPauseKinds.contains($0.kind.rawValue) }
            if !keyPauses.isEmpty {
                problems += keyPauses.map {
                    .paused(agent, kind: $0.kind.rawValue, until: $0.until, reason: $0.reason)
                }
            } else if report.unclaimed.contains(agent) {
                problems.append(.unclaimed(agent))
            } else if let reason = report.authBroken[agent] {
                problems.append(HealthProblem(kind: "auth_broken", agent: agent, message: reason))
            }
        }
        return (nil, problems)
    }
}

/// The daemon's probe listener's source: the metrics (the state read at each scrape), and the
/// probes.
struct DaemonProbeSource: ProbeSource {
    let telemetry: RunTelemetry
    let probes: RunnerProbes
    let store: any StateStore
    let holder: String
    let clock: @Sendable () -> Date

    func metrics(scrapeTimeout: Duration?) async -> String {
        await telemetry.exposition(
            store: store, holder: holder, now: clock(), wait: RunTelemetry.stateReadWait(scrapeTimeout: scrapeTimeout))
    }

    func liveness() async -> ProbeStatus { probes.liveness() }

    func readiness() async -> ProbeStatus { probes.readiness() }
}
