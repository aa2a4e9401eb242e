import Foundation
import MoltipassEngine
import MoltipassPlan

/// What `plan --live` found: per job, when it was looked at, and per write what the engine
/// would do now (`would_send` with the request, or deferred, skipped, …).
public struct PlanLiveResult: Sendable, Codable, Equatable {
    /// The outcome of a write the read-only transport refused: `run` would have sent it.
    public static let wouldSend = "would_send"

    /// One job and the instant it was planned at.
    public struct Job: Sendable, Codable, Equatable {
        public var agent: String
        public var recipe: String
        public var job: String
        /// Now when an occurrence is due; else the next occurrence; absent when none is left.
        public var at: Date?
        public var dueNow: Bool
    }

    /// One item of the engine's report, with the write behind it.
    public struct Row: Sendable, Codable, Equatable {
        public var time: Date
        public var agent: String
        public var recipe: String
        public var job: String
        public var action: String
        public var summary: String
        public var target: String?
        public var targetTitle: String? = nil
        public var targetAuthor: String? = nil
        public var submolt: String?
        public var title: String?
        public var excerpt: String?
        /// `would_send`, or the engine's outcome (`deferred`, `skipped`, `failed`, `uncertain`,
        /// `done` when the server already holds it).
        public var outcome: String
        public var reason: String?
        public var until: Date?
        /// `would_send`: the request that was not sent (`POST /api/v1/posts`).
        public var request: String?
        public var key: String?
    }

    public var schemaVersion = 1
    public var now: Date
    public var stateCopied: Bool
    public var jobs: [Job]
    public var rows: [Row]
    /// GET requests made.
    public var reads: Int
    /// Requests refused before the network (every one a write `run` would send).
    public var writesRefused: Int
    public var paused: [String: Date]
    public var authBroken: [String: String]

    /// Sorted keys, snake_case, ISO-8601 UTC times (as `plan --json`).
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return try encoder.encode(self)
    }

    /// The terminal view: the jobs and when each was looked at, then one line per item.
    public func text(zone display: PlanDisplayZone) -> String {
        let zone = display.zone
        var lines: [String] = []
        lines.append(
            "plan --live at \(PlanResult.local(now, zone)): the real server, reads only — \(reads) GET, "
                + "\(writesRefused) write\(writesRefused == 1 ? "" : "s") not sent; "
                + (stateCopied ? "the state file copied, never written" : "no state file: an empty state"))
        lines.append(display.header)
        lines.append("")
        let jobRows = jobs.map { job in
            [
                job.agent, "\(job.recipe)/\(job.job)",
                job.at.map { job.dueNow ? "due now" : "next occurrence \(PlanResult.local($0, zone))" }
                    ?? "no occurrence left",
            ]
        }
        lines += PlanResult.table(header: ["agent", "job", "looked at"], rows: jobRows) { _, _, text in text }
        lines.append("")
        let header = ["time", "agent", "job", "action", "target", "title / excerpt", "outcome", "request or reason"]
        let rows = rows.map { row in
            var reason = row.request ?? row.reason ?? ""
            if let until = row.until, row.outcome == "deferred" {
                reason += " (until \(PlanResult.local(until, zone)))"
            }
            return [
                PlanResult.local(row.time, zone), row.agent, row.job, row.action, Self.target(row),
                PlanResult.cut(row.title ?? row.excerpt ?? "", 40),
                row.outcome.replacingOccurrences(of: "_", with: " "),
                PlanResult.cut(reason, 70),
            ]
        }
        if rows.isEmpty {
            lines.append("nothing to do: no selector picked a post and no write is due")
        } else {
            lines += PlanResult.table(header: header, rows: rows) { _, _, text in text }
        }
        for (agent, until) in paused.sorted(by: { $0.key < $1.key }) {
            lines.append("\(agent): writes paused until \(PlanResult.local(until, zone))")
        }
        for (agent, reason) in authBroken.sorted(by: { $0.key < $1.key }) {
            lines.append("\(agent): the key or account cannot write: \(reason)")
        }
        return lines.joined(separator: "\n")
    }

    static func target(_ row: Row) -> String {
        PlanResult.targetText(
            action: row.action, target: row.target, title: row.targetTitle, author: row.targetAuthor,
            submolt: row.submolt)
    }
}

extension PlanFailOn {
    /// The same for a `--live` plan's rows.
    public func findings(in live: PlanLiveResult) -> [(PlanResult.Event.Outcome, Int)] {
        var counts: [PlanResult.Event.Outcome: Int] = [:]
        for row in live.rows {
            if let outcome = PlanResult.Event.Outcome(rawValue: row.outcome), outcomes.contains(outcome) {
                counts[outcome, default: 0] += 1
            }
        }
        return Self.accepted.compactMap { outcome in counts[outcome].map { (outcome, $0) } }
    }
}
