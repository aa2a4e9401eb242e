import Foundation
import MoltipassEngine
import Recipes
import Storage

/// `status --health` (issue 19, "health that tells the truth"): unhealthy, with every reason
/// named, when nothing can work or an operator must act:
///
/// - the engine has not ticked, or not within `--max-tick-age`;
/// - an agent is paused by anything but the operator (a refused key, a suspension, a failed
///   challenge or a streak of them, the auth breaker);
/// - a daemon whose heartbeat is fresh recorded a problem it cannot solve itself: a keychain it
///   cannot unlock or an entry it cannot find, a recipe file it skipped (`RunnerHealth`);
/// - the server said an agent is not claimed;
/// - a job's content queue has no item left;
/// - a write's outcome is unknown after reading back (issue 33): it is never re-sent by itself,
///   an operator settles it (`moltipass settle KEY --sent | --not-sent`);
/// - the state file cannot be written here;
/// - a recipe file given to `status` is invalid;
/// - (in the daemon's record) a recipe skipped for an unset `env:` variable or a missing solver.
///
/// Read from the same snapshot as the rest of `status`: nothing is written, nothing is sent.
public enum HealthCheck {
    public static func problems(
        report: StatusReport, recipes: [Recipe], invalid: [Diagnostic], store: any StateStore, state: StateTarget,
        maxTickAge: TimeInterval
    ) async throws -> [HealthProblem] {
        let now = report.now
        var problems = Daemon.problems(invalid: invalid)
        let (heartbeats, records) = try await store.read { reader in
            (try await reader.heartbeats(), try await RunnerHealth.records(in: reader))
        }
        if let lastTick = report.lastTick {
            if now.timeIntervalSince(lastTick) > maxTickAge {
                problems.append(
                    HealthProblem(
                        kind: "stale_tick",
                        message: "last engine tick \(Int(now.timeIntervalSince(lastTick))) s ago "
                            + "(limit \(Int(maxTickAge)) s): is the daemon or the cron job running?"))
            }
        } else {
            problems.append(
                HealthProblem(
                    kind: "no_tick",
                    message: "no engine is running: no heartbeat in the state (no run yet, or the daemon stopped)"))
        }
        // Records of daemons that are alive: a stopped or crashed one's record is history.
        let alive = Set(heartbeats.filter { now.timeIntervalSince($0.lastTick) <= maxTickAge }.map(\.holder))
        for (holder, record) in records.sorted(by: { $0.key < $1.key }) where alive.contains(holder) {
            problems += record.problems
        }
        for agent in report.agents {
            for pause in agent.pauses where pause.kind != PauseKind.manual.rawValue {
                problems.append(.paused(agent.agent, kind: pause.kind, until: pause.until, reason: pause.reason))
            }
            // Uncertain with a time to read again: read back once already, and what the server
            // listed did not say (an entry still in flight has none).
            for entry in agent.pending where entry.state == JournalState.uncertain.rawValue && entry.nextAttempt != nil
            {
                problems.append(
                    HealthProblem(
                        kind: "write_unknown", agent: agent.agent,
                        message: "\(entry.action): its outcome is unknown and it is not sent again by itself; "
                            + "look on the server, then `moltipass settle \(entry.key.prefix(12)) --sent` or `--not-sent`"
                    ))
            }
        }
        problems += try await serverFacts(recipes: recipes, store: store)
        // A PostgreSQL state answered the reads above: reachable (its writability is the
        // server's grants; a runner that cannot write reports its own failures).
        if let path = state.filePath, let problem = stateWritability(path) { problems.append(problem) }
        // One line per problem, in a stable order.
        var seen: Set<String> = []
        return problems.filter { seen.insert("\($0.kind)|\($0.agent ?? "")|\($0.message)").inserted }
    }

    /// What the state says of each agent: not claimed; queues with nothing left.
    static func serverFacts(recipes: [Recipe], store: any StateStore) async throws -> [HealthProblem] {
        var problems: [HealthProblem] = []
        for agent in Array(Set(recipes.map(\.agent.value))).sorted() {
            let (info, ledger) = try await store.read { reader in
                (
                    try await reader.limiterState(account: agent, key: "account").flatMap(AccountInfo.init(stored:)),
                    try await reader.limiterState(account: agent, key: QueueLedger.stateKey).flatMap(
                        QueueLedger.init(stored:))
                )
            }
            if info?.claimed == false {
                problems.append(.unclaimed(agent))
            }
            guard let ledger else { continue }
            for recipe in recipes where recipe.agent.value == agent {
                for job in recipe.jobs {
                    for step in job.steps {
                        guard case .post(let post) = step.action, let queue = post.queue,
                            ledger.next(in: queue) == nil
                        else { continue }
                        problems.append(
                            HealthProblem(
                                kind: "queue_dry", agent: agent,
                                message: "\(recipe.file): job `\(job.id.value)`: content queue \(queue.path.value) "
                                    + "has run dry (all \(queue.items.count) items taken): add items"))
                    }
                }
            }
        }
        return problems
    }

    /// A problem when the state file (or, before it exists, its directory) cannot be written:
    /// the engine could not record a thing. SQLite also needs the directory, for its journal.
    static func stateWritability(_ path: String) -> HealthProblem? {
        let directory = (path as NSString).deletingLastPathComponent
        let folder = directory.isEmpty ? "." : directory
        let file = FileManager.default.fileExists(atPath: path)
        let writable =
            FileManager.default.isWritableFile(atPath: folder)
            && (!file || FileManager.default.isWritableFile(atPath: path))
        guard !writable else { return nil }
        return HealthProblem(
            kind: "state_not_writable",
            message: "the state \(file ? "file \(path)" : "directory \(folder)") cannot be written here: "
                + "the engine cannot record what it does (check the mount and its permissions)")
    }
}
