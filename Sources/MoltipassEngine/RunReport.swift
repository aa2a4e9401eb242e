import Foundation
import Storage

/// What one pass of the engine did, per action; summarised for stderr and `--json`.
public struct RunReport: Sendable, Codable, Equatable {
    /// One line of the report.
    public struct Item: Sendable, Codable, Equatable {
        public enum Outcome: String, Sendable, Codable {
            case done
            case deferred
            case skipped
            case uncertain
            case failed
            case challenged
        }

        public var agent: String
        public var recipe: String
        public var job: String
        public var action: String
        public var outcome: Outcome
        /// Why (the binding limit, the policy, the error).
        public var reason: String?
        /// For deferred items: when they may run.
        public var until: Date?
        /// The journal entry's idempotency key, for items about a journaled write.
        public var key: String?
        /// The step of the job that planned the write.
        public var step: Int?

        public init(
            agent: String, recipe: String, job: String, action: String, outcome: Outcome, reason: String? = nil,
            until: Date? = nil, key: String? = nil, step: Int? = nil
        ) {
            self.agent = agent
            self.recipe = recipe
            self.job = job
            self.action = action
            self.outcome = outcome
            self.reason = reason
            self.until = until
            self.key = key
            self.step = step
        }
    }

    public var items: [Item] = []
    /// Accounts another process holds (nothing was done for them).
    public var locked: [String] = []
    /// What a daemon sharing its state with others decided about the fleet (nil: not spreading).
    /// Not in the JSON report (`run --once` does not spread).
    public var fleet: FleetView?
    /// Accounts whose writes are paused, with until when.
    public var paused: [String: Date] = [:]
    /// Accounts whose writes are paused → the kinds of pause (`manual`, `challenge_failed`, …), sorted.
    public var pauseKinds: [String: [String]] = [:]
    /// Accounts whose key or account is broken.
    public var authBroken: [String: String] = [:]
    /// Accounts whose key could not be read from the keychain.
    public var keychainFailures: [String: String] = [:]
    /// Accounts whose key was read from the keychain and checked with the server in this pass
    /// (the daemon's start-up check): a keychain failure reported earlier is over.
    public var keysChecked: [String] = []
    /// Accounts the server says are not claimed (`is_claimed: false`).
    public var unclaimed: [String] = []
    /// Content queues a due post found with no item left (`recipe/job: path`): someone must
    /// add items, so a cron run says so (exit 7).
    public var dryQueues: [String] = []
    /// Failures that may pass (network, 5xx before sending).
    public var transientFailures = 0
    /// Texts still being generated when the pass ended (the daemon passes again when one is
    /// ready; `run --once` waits for them).
    public var generationsPending = 0
    /// Generations that failed this pass (a crash, a timeout, a refusal by the model server).
    public var generationFailures = 0
    /// How each job's generator last fared this pass, by `agent: recipe/job` (the daemon's
    /// health counts failing streaks).
    public var generation: [String: GenerationResult] = [:]

    public enum GenerationResult: Sendable, Equatable {
        case succeeded
        case failed(String)
    }
    /// The earliest instant something becomes due (a deferred action or the next occurrence).
    public var nextDue: Date?

    public init() {}

    /// The JSON fields (README, "`run --once --json`"); `keysChecked` is the daemon's
    /// bookkeeping, not part of a run's report.
    enum CodingKeys: String, CodingKey {
        case items, locked, paused, pauseKinds, authBroken, keychainFailures, unclaimed, dryQueues, transientFailures
        case nextDue
    }

    /// Brings `nextDue` forward to `date` if that is earlier.
    mutating func due(at date: Date) {
        nextDue = min(nextDue ?? date, date)
    }

    public func count(_ outcome: Item.Outcome) -> Int { items.filter { $0.outcome == outcome }.count }

    /// Records that `agent`'s writes are paused until `until` (the latest pause wins) by pauses
    /// of `kinds`.
    mutating func pause(_ agent: String, until: Date, kinds: [PauseKind]) {
        paused[agent] = max(paused[agent] ?? until, until)
        pauseKinds[agent] = Array(Set((pauseKinds[agent] ?? []) + kinds.map(\.rawValue))).sorted()
    }

    /// Agents paused by something other than the operator (a failed challenge, a suspension,
    /// the auth breaker, a refused key): those need attention. A pause of unknown kind counts.
    public var pausedForAttention: [String] {
        paused.keys.filter { agent in
            let kinds = pauseKinds[agent] ?? []
            return kinds.isEmpty || kinds.contains { $0 != PauseKind.manual.rawValue }
        }.sorted()
    }

    /// What a `run --once` that produced this report came to, the most urgent first (README,
    /// "Exit codes"): auth broken (someone must act), the keychain, paused (an account stopped
    /// writing, even if something was done before), a failed write, an uncertain one (neither
    /// is hidden behind another write's success), a failed generator (issue 21: a step whose
    /// text could not be written), a dry content queue, done, locked, transient, deferred,
    /// nothing due.
    ///
    /// - Parameter operatorPauses: whether a pause the operator asked for (`moltipass pause`)
    ///   counts as `paused`; when not, the agent counts as nothing done.
    public func outcome(operatorPauses: Bool = true) -> Outcome {
        if !authBroken.isEmpty { return .authBroken }
        if !keychainFailures.isEmpty { return .keychain }
        if operatorPauses ? !paused.isEmpty : !pausedForAttention.isEmpty { return .paused }
        if count(.failed) > generationFailures { return .writeFailed }
        if count(.uncertain) > 0 { return .uncertain }
        if generationFailures > 0 { return .generatorFailed }
        if !dryQueues.isEmpty { return .queueEmpty }
        if count(.done) + count(.challenged) > 0 { return .done }
        if !locked.isEmpty { return .locked }
        if transientFailures > 0 { return .transient }
        if count(.deferred) > 0 { return .deferred }
        return .nothingDue
    }

    /// The exit status of `run --once`: 0 for every outcome that is not a failure (done,
    /// nothing due, deferred, locked, paused by the operator); with `detailed`
    /// (`--detailed-exitcode`) 3, 4, 5 and 6 tell those apart.
    public func exitStatus(detailed: Bool) -> ExitStatus {
        let outcome = outcome(operatorPauses: detailed)
        return detailed ? outcome.detailedExitStatus : outcome.exitStatus
    }

    /// `exitStatus(detailed: false)`.
    public var exitStatus: ExitStatus { exitStatus(detailed: false) }

    /// The outcome of a `run --once`, as `--json` names it (`outcome`).
    public enum Outcome: String, Sendable, Codable, CaseIterable {
        case done
        case nothingDue = "nothing_due"
        case deferred
        case locked
        case paused
        case writeFailed = "write_failed"
        case uncertain
        case transient
        case authBroken = "auth_broken"
        case keychain
        case queueEmpty = "queue_empty"
        case generatorFailed = "generator_failed"

        /// `--detailed-exitcode`: every outcome its own code.
        public var detailedExitStatus: ExitStatus {
            switch self {
            case .done: .ok
            case .nothingDue: .nothingDue
            case .deferred: .deferred
            case .locked: .locked
            case .paused: .paused
            case .writeFailed: .writeFailed
            case .uncertain: .uncertain
            case .transient: .transient
            case .authBroken: .authBroken
            case .keychain: .keychain
            case .queueEmpty: .queueEmpty
            case .generatorFailed: .generatorFailed
            }
        }

        /// Without the flag: 0 for the outcomes that are not failures.
        public var exitStatus: ExitStatus {
            switch self {
            case .done, .nothingDue, .deferred, .locked: .ok
            default: detailedExitStatus
            }
        }

        /// Not a failure: the plain exit status is 0.
        public var isSuccess: Bool { exitStatus == .ok }
    }

    /// Brings `nextDue` forward to every deferred item's time: each path that defers a write
    /// says when in its report line, and the daemon must wake then, not at the next occurrence.
    mutating func includeDeferrals() {
        for item in items where item.outcome == .deferred {
            if let until = item.until { due(at: until) }
        }
    }

    /// One line for stderr: `moltipass: 2 done, 1 deferred (next 10:30:00Z), 0 failed`.
    public var summary: String {
        var parts = ["\(count(.done)) done", "\(count(.deferred)) deferred", "\(count(.skipped)) skipped"]
        if count(.uncertain) > 0 { parts.append("\(count(.uncertain)) uncertain") }
        if count(.failed) > 0 { parts.append("\(count(.failed)) failed") }
        if count(.challenged) > 0 { parts.append("\(count(.challenged)) awaiting verification") }
        if !locked.isEmpty { parts.append("locked: \(locked.sorted().joined(separator: ", "))") }
        if !paused.isEmpty { parts.append("paused: \(paused.keys.sorted().joined(separator: ", "))") }
        if !authBroken.isEmpty { parts.append("auth broken: \(authBroken.keys.sorted().joined(separator: ", "))") }
        if !keychainFailures.isEmpty {
            parts.append("keychain: \(keychainFailures.keys.sorted().joined(separator: ", "))")
        }
        if !dryQueues.isEmpty { parts.append("queue empty: \(dryQueues.joined(separator: ", "))") }
        if let nextDue { parts.append("next due \(MoltbookDateText.iso(nextDue))") }
        return "moltipass: " + parts.joined(separator: ", ")
    }
}

/// ISO-8601 text for reports (UTC, seconds).
package enum MoltbookDateText {
    package static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
