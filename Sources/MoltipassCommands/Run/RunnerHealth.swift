import Foundation
import Logging
import MoltbookAPI
import MoltipassEngine
import Storage

/// One reason a runner is not healthy, for `status --health` and its JSON.
public struct HealthProblem: Sendable, Codable, Equatable {
    /// What kind of problem: `no_tick`, `stale_tick`, `paused`, `keychain`, `unclaimed`,
    /// `queue_dry`, `state_not_writable`, `invalid_recipe`, `environment`, `write_unknown`.
    public var kind: String
    /// The agent it concerns, if one.
    public var agent: String?
    /// What is wrong and, where it helps, what to do.
    public var message: String

    public init(kind: String, agent: String? = nil, message: String) {
        self.kind = kind
        self.agent = agent
        self.message = message
    }

    /// The server says `agent` is not claimed (health and `check` say it the same way).
    static func unclaimed(_ agent: String) -> HealthProblem {
        HealthProblem(
            kind: "unclaimed", agent: agent,
            message: "the server says the agent is not claimed: its human must claim it (moltipass claim \(agent))")
    }

    /// `agent` is paused by a pause of `kind` (health lists every kind but `manual`; readiness
    /// the pauses of a refused key and of the auth breaker): the same words in both.
    static func paused(_ agent: String, kind: String, until: Date?, reason: String) -> HealthProblem {
        HealthProblem(
            kind: "paused", agent: agent,
            message: "paused (\(kind)" + (until.map { " until \(MoltbookDateText.iso($0))" } ?? ", until resumed")
                + "): \(reason)")
    }

    /// The text form: `agent: message`, or the message.
    public var text: String { agent.map { "\($0): \(message)" } ?? message }
}

/// What a daemon knows about its own health and the state cannot show by itself: keychain
/// entries it cannot read, recipe files it skipped, environment variables that are missing.
/// Written by the daemon after its start-up check and after every pass that changes it, under
/// its holder id; `status --health` reads the records of the daemons whose heartbeat is fresh.
///
/// Stored as one JSON object (holder → record) in the state's key-value rows (account "",
/// key `runner-health`), so a fleet's daemons each keep their own record.
public struct RunnerHealth: Sendable, Equatable {
    static let account = ""
    static let key = "runner-health"

    public var holder: String
    public var at: Date
    public var problems: [HealthProblem]

    public init(holder: String, at: Date, problems: [HealthProblem]) {
        self.holder = holder
        self.at = at
        self.problems = problems
    }

    /// Every stored record, by holder.
    static func records(in reader: any StateReader) async throws -> [String: RunnerHealth] {
        guard let data = try await reader.limiterState(account: account, key: key),
            let object = (try? JSONValue.parse(data))?.object
        else { return [:] }
        var result: [String: RunnerHealth] = [:]
        for (holder, value) in object {
            guard let seconds = value["at"]?.double else { continue }
            let problems = (value["problems"]?.array ?? []).compactMap { item -> HealthProblem? in
                guard let kind = item["kind"]?.string, let message = item["message"]?.string else { return nil }
                return HealthProblem(kind: kind, agent: item["agent"]?.string, message: message)
            }
            result[holder] = RunnerHealth(
                holder: holder, at: Date(timeIntervalSince1970: seconds), problems: problems)
        }
        return result
    }

    /// Stores this record (replacing the holder's earlier one), or removes the holder's record
    /// when `remove` (a daemon that stops cleanly).
    func store(in transaction: any StateTransaction, remove: Bool = false) async throws {
        var records = try await Self.records(in: transaction)
        if remove { records[holder] = nil } else { records[holder] = self }
        var object: [String: JSONValue] = [:]
        for (holder, record) in records {
            object[holder] = .object([
                "at": .number(record.at.timeIntervalSince1970),
                "problems": .array(
                    record.problems.map { problem in
                        var fields: [String: JSONValue] = [
                            "kind": .string(problem.kind), "message": .string(problem.message),
                        ]
                        if let agent = problem.agent { fields["agent"] = .string(agent) }
                        return .object(fields)
                    }),
            ])
        }
        try await transaction.setLimiterState(
            JSONValue.object(object).encoded(), account: Self.account, key: Self.key, at: at)
    }
}

/// The daemon's view of its own health across passes: recipe files it skipped, and keychain
/// entries it could not read (sticky: a pass that needs no key does not show that the key now
/// works; the next pass that reads it, or the start-up check after a reload, does). Written as
/// this daemon's `RunnerHealth` record whenever it changes.
struct HealthTracker {
    let holder: String
    var recipeProblems: [HealthProblem]
    var keychain: [String: String] = [:]
    /// Generators failing in a row, by `agent: recipe/job`: how many times, and the last reason.
    var generators: [String: (count: Int, reason: String)] = [:]
    var stored: [HealthProblem]?

    /// Failures in a row after which a job's generator is a health problem: one failure is
    /// reported in its run's line and retried at the next occurrence; a streak needs someone.
    static let generatorStreak = 3

    init(holder: String, recipeProblems: [HealthProblem]) {
        self.holder = holder
        self.recipeProblems = recipeProblems
    }

    var problems: [HealthProblem] {
        recipeProblems
            + keychain.sorted { $0.key < $1.key }.map { agent, message in
                HealthProblem(kind: "keychain", agent: agent, message: "cannot read the key: \(message)")
            }
            + generators.filter { $0.value.count >= Self.generatorStreak }.sorted { $0.key < $1.key }.map {
                job, streak in
                let (agent, name) = job.split(separator: ":", maxSplits: 1).map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                .splat
                return HealthProblem(
                    kind: "generator_failing", agent: agent,
                    message: "job \(name): the generator failed \(streak.count) times in a row; last: \(streak.reason)")
            }
    }

    /// The start-up check (`Runner.preflight`): every agent's key read and checked once; its
    /// report (the daemon's readiness reads the refused keys from it).
    @discardableResult
    mutating func check(_ runner: Runner, at now: Date, store: any StateStore, logger: Logger) async -> RunReport {
        let report = await runner.preflight(now: now)
        for (agent, message) in report.keychainFailures.sorted(by: { $0.key < $1.key }) {
            logger.error("cannot read the agent's key", metadata: ["agent": "\(agent)", "why": "\(message)"])
        }
        for (agent, message) in report.authBroken.sorted(by: { $0.key < $1.key }) {
            logger.error("the agent cannot write", metadata: ["agent": "\(agent)", "why": "\(message)"])
        }
        for agent in report.unclaimed {
            logger.error(
                "the agent is not claimed: its human must claim it (moltipass claim)", metadata: ["agent": "\(agent)"])
        }
        keychain = [:]
        await update(with: report, at: now, store: store)
        return report
    }

    /// Folds a pass's report in and stores the record if it changed.
    mutating func update(with report: RunReport, at now: Date, store: any StateStore) async {
        for agent in report.keysChecked { keychain[agent] = nil }
        for (job, result) in report.generation {
            switch result {
            case .succeeded: generators[job] = nil
            case .failed(let reason): generators[job] = ((generators[job]?.count ?? 0) + 1, reason)
            }
        }
        for (agent, message) in report.keychainFailures { keychain[agent] = message }
        let problems = problems
        guard problems != stored else { return }
        let record = RunnerHealth(holder: holder, at: now, problems: problems)
        if (try? await store.transaction { try await record.store(in: $0) }) != nil { stored = problems }
    }

    /// Removes the record (a clean stop).
    func remove(store: any StateStore) async {
        let record = RunnerHealth(holder: holder, at: Date(timeIntervalSince1970: 0), problems: [])
        _ = try? await store.transaction { try await record.store(in: $0, remove: true) }
    }
}

extension Array where Element == String {
    /// The first two elements (an `agent: job` key split at its colon).
    fileprivate var splat: (String, String) { (first ?? "", count > 1 ? self[1] : "") }
}
