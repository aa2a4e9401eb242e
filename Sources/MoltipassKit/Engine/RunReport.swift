import Foundation

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
    /// Accounts whose writes are paused, with until when.
    public var paused: [String: Date] = [:]
    /// Accounts whose key or account is broken.
    public var authBroken: [String: String] = [:]
    /// Accounts whose key could not be read from the keychain.
    public var keychainFailures: [String: String] = [:]
    /// Failures that may pass (network, 5xx before sending).
    public var transientFailures = 0
    /// The earliest instant something becomes due (a deferred action or the next occurrence).
    public var nextDue: Date?

    public init() {}

    /// Brings `nextDue` forward to `date` if that is earlier.
    mutating func due(at date: Date) {
        nextDue = min(nextDue ?? date, date)
    }

    public func count(_ outcome: Item.Outcome) -> Int { items.filter { $0.outcome == outcome }.count }

    /// The exit status of a `run --once` that produced this report (README, "Exit codes"):
    /// auth broken first (someone must act), then keychain, paused (an account stopped writing:
    /// a failed challenge, a suspension, the auth breaker — even if something was done before),
    /// a failed write, an uncertain one (neither is hidden behind another write's success),
    /// done, locked, transient, deferred, nothing due.
    public var exitStatus: ExitStatus {
        if !authBroken.isEmpty { return .authBroken }
        if !keychainFailures.isEmpty { return .keychain }
        if !paused.isEmpty { return .paused }
        if count(.failed) > 0 { return .writeFailed }
        if count(.uncertain) > 0 { return .uncertain }
        if count(.done) + count(.challenged) > 0 { return .ok }
        if !locked.isEmpty { return .locked }
        if transientFailures > 0 { return .transient }
        if count(.deferred) > 0 { return .deferred }
        return .nothingDue
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
        if let nextDue { parts.append("next due \(MoltbookDateText.iso(nextDue))") }
        return "moltipass: " + parts.joined(separator: ", ")
    }
}

/// ISO-8601 text for reports (UTC, seconds).
enum MoltbookDateText {
    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
