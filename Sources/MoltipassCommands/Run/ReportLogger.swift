import Foundation
import Logging
import MoltipassEngine
import Storage

/// Logs what a pass of the engine did, for containers and log shippers: one event per
/// `RunReport` item (`event=action`) and one per account that was locked, paused, auth-broken
/// or had no key (`event=account`). Field names are stable and documented in `docs/deploy.md`,
/// "Logs"; no field ever carries an API key.
///
/// Levels: `done`, `skipped`, `deferred` and `challenged` info (a challenge answered is a
/// success; one that fails is a `failed` verify item), `uncertain` warning, `failed` error. So a
/// `run --once` at its default level (warning) prints nothing when nothing failed. The daemon sees the same deferral on every pass; with `repeatDeferrals`
/// off (the daemon) a deferral is logged once until it changes or goes away.
public struct ReportLogger: Sendable {
    public let logger: Logger
    let store: (any StateStore)?
    let repeatDeferrals: Bool
    private var loggedDeferrals: Set<String> = []
    private var loggedUnclaimed: Set<String> = []

    /// - Parameter store: kept for callers; `step` and `request_id` come from the report items.
    public init(logger: Logger, store: (any StateStore)?, repeatDeferrals: Bool) {
        self.logger = logger
        self.store = store
        self.repeatDeferrals = repeatDeferrals
    }

    /// Logs `report`, a pass (or passes) that started at `since`.
    public mutating func log(_ report: RunReport, since: Date) async {
        var deferrals: Set<String> = []
        for item in report.items {
            if item.outcome == .deferred {
                let identity = [
                    item.agent, item.recipe, item.job, item.action, item.key ?? "",
                    item.until.map { "\($0.timeIntervalSince1970)" } ?? "",
                ].joined(separator: "\u{1F}")
                deferrals.insert(identity)
                if !repeatDeferrals, loggedDeferrals.contains(identity) { continue }
            }
            logger.log(
                level: Self.level(item.outcome), "\(item.outcome.rawValue): \(item.action)",
                metadata: Self.metadata(item))
        }
        loggedDeferrals = deferrals
        for agent in report.locked.sorted() {
            logger.notice(
                "locked: another process holds the lease", metadata: Self.account(agent, "locked", nil, nil))
        }
        let attention = Set(report.pausedForAttention)
        for (agent, until) in report.paused.sorted(by: { $0.key < $1.key }) {
            // A pause the operator asked for is not news: notice, not warning (not in cron mail).
            logger.log(
                level: attention.contains(agent) ? .warning : .notice, "paused",
                metadata: Self.account(agent, "paused", report.pauseKinds[agent]?.joined(separator: ","), until))
        }
        for (agent, reason) in report.authBroken.sorted(by: { $0.key < $1.key }) {
            logger.error("auth broken", metadata: Self.account(agent, "auth_broken", reason, nil))
        }
        for (agent, reason) in report.keychainFailures.sorted(by: { $0.key < $1.key }) {
            logger.error("keychain", metadata: Self.account(agent, "keychain", reason, nil))
        }
        // Not an error: some servers let an unclaimed agent act (a refused write is `auth_broken`
        // above); but the operator must hear it from every run, not only from `check` (the daemon
        // once until the agent is claimed, like a deferral).
        let unclaimed = Set(report.unclaimed)
        defer { loggedUnclaimed = unclaimed }
        for agent in unclaimed.sorted() where repeatDeferrals || !loggedUnclaimed.contains(agent) {
            logger.warning(
                "not claimed: its human must claim it (moltipass claim \(agent))",
                metadata: Self.account(agent, "unclaimed", nil, nil))
        }
    }

    static func level(_ outcome: RunReport.Item.Outcome) -> Logger.Level {
        switch outcome {
        case .done, .skipped, .deferred, .challenged: .info
        case .uncertain: .warning
        case .failed: .error
        }
    }

    /// The fields of one action line.
    static func metadata(_ item: RunReport.Item) -> Logger.Metadata {
        var fields: Logger.Metadata = [
            "event": "action", "agent": "\(item.agent)", "recipe": "\(item.recipe)", "job": "\(item.job)",
            "action": "\(item.action)", "outcome": "\(item.outcome.rawValue)",
        ]
        if let reason = item.reason, !reason.isEmpty { fields["reason"] = "\(reason)" }
        if let until = item.until { fields["next_allowed"] = "\(MoltbookDateText.iso(until))" }
        if let step = item.step { fields["step"] = .stringConvertible(step) }
        if let key = item.key { fields["request_id"] = "\(key)" }
        return fields
    }

    /// The fields of one account line.
    static func account(_ agent: String, _ outcome: String, _ reason: String?, _ until: Date?) -> Logger.Metadata {
        var fields: Logger.Metadata = ["event": "account", "agent": "\(agent)", "outcome": "\(outcome)"]
        if let reason, !reason.isEmpty { fields["reason"] = "\(reason)" }
        if let until { fields["next_allowed"] = "\(MoltbookDateText.iso(until))" }
        return fields
    }

    /// The fields of the closing line of `run --once` (`event=run`): counts, outcome, exit
    /// status (`detailed`: as with `--detailed-exitcode`), next due.
    public static func summary(_ report: RunReport, detailed: Bool = false) -> Logger.Metadata {
        var fields: Logger.Metadata = [
            "event": "run", "exit_status": .stringConvertible(Int(report.exitStatus(detailed: detailed).rawValue)),
            "outcome": "\(report.outcome().rawValue)",
            "transient_failures": .stringConvertible(report.transientFailures),
        ]
        for outcome in [RunReport.Item.Outcome.done, .deferred, .skipped, .uncertain, .failed, .challenged] {
            fields[outcome.rawValue] = .stringConvertible(report.count(outcome))
        }
        if let next = report.nextDue { fields["next_due"] = "\(MoltbookDateText.iso(next))" }
        return fields
    }
}
