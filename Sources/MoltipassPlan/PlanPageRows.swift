import Foundation
import MoltipassEngine

/// The rows of the page's table: one per journaled write (its deferrals and outcome folded in),
/// and one per run of identical unjournaled items of a day (`the selector found no post` ×96).
/// The terminal table and `--json` keep every event; the page summarises so a month stays small.
struct PlanPageRows {
    struct Row {
        var time: Date
        var agent: String
        var job: String
        var action: String
        var target: String
        var text: String
        var outcome: PlanResult.Event.Outcome
        /// What happened to it, in words (waits, the final outcome, the reason).
        var detail: String
        /// Identical items folded into this row, and the last one's time.
        var count = 1
        var last: Date?
    }

    private(set) var rows: [Row] = []

    init(events: [PlanResult.Event], zone: TimeZone) {
        var byKey: [String: Int] = [:]
        var waits: [String: (count: Int, reason: String, until: Date?)] = [:]
        var groups: [String: Int] = [:]
        for event in events {
            if let key = event.key {
                if let index = byKey[key] {
                    rows[index].outcome = event.outcome
                    if event.outcome == .deferred {
                        let earlier = waits[key]
                        waits[key] = ((earlier?.count ?? 0) + 1, event.reason ?? earlier?.reason ?? "", event.until)
                    } else {
                        rows[index].last = event.time
                    }
                    rows[index].detail = Self.detail(event, waits: waits[key], zone: zone)
                    continue
                }
                byKey[key] = rows.count
                if event.outcome == .deferred { waits[key] = (1, event.reason ?? "", event.until) }
                rows.append(row(event, detail: Self.detail(event, waits: waits[key], zone: zone)))
                continue
            }
            let action = event.action.hasPrefix("occurrence") ? "occurrence" : event.action
            let day = PlanResult.local(event.time, zone).prefix(10)
            let group = [String(day), event.agent, event.job, action, event.outcome.rawValue, event.reason ?? ""]
                .joined(separator: "\u{1F}")
            if let index = groups[group] {
                rows[index].count += 1
                rows[index].last = event.time
                continue
            }
            groups[group] = rows.count
            var made = row(event, detail: event.reason ?? "")
            made.action = action
            rows.append(made)
        }
        // Writes that waited and expired unsent (a schedule faster than the limits: each waiting
        // write gives way to the next occurrence's): one row per day, job and action, counted.
        var kept: [Row] = []
        var expiredGroups: [String: Int] = [:]
        for row in rows {
            guard row.outcome == .skipped, row.detail.contains("expired ") else {
                kept.append(row)
                continue
            }
            let day = PlanResult.local(row.time, zone).prefix(10)
            let group = [String(day), row.agent, row.job, row.action].joined(separator: "\u{1F}")
            if let index = expiredGroups[group] {
                kept[index].count += 1
                kept[index].last = row.last ?? row.time
                continue
            }
            expiredGroups[group] = kept.count
            var first = row
            first.target = ""
            first.text = ""
            first.detail = "waited, then expired unsent (the job's next occurrence came first)"
            kept.append(first)
        }
        rows = kept
        for index in rows.indices where rows[index].count > 1 {
            let last = rows[index].last.map { PlanResult.local($0, zone).dropFirst(11).prefix(8) } ?? ""
            rows[index].detail += " — ×\(rows[index].count), the last at \(last)"
        }
    }

    private func row(_ event: PlanResult.Event, detail: String) -> Row {
        Row(
            time: event.time, agent: event.agent, job: event.job, action: event.action,
            target: PlanResult.targetText(event, limit: 48),
            text: PlanResult.cut(event.title ?? event.excerpt ?? "", 60),
            outcome: event.outcome, detail: detail)
    }

    /// `waited 2× (the last binding rule) until 01:30; sent 01:30; id 8f0c11aa` (the outcome itself is
    /// in its own column; the time only when it is not the row's).
    static func detail(
        _ event: PlanResult.Event, waits: (count: Int, reason: String, until: Date?)?, zone: TimeZone
    ) -> String {
        var parts: [String] = []
        func clock(_ date: Date) -> String { String(PlanResult.local(date, zone).prefix(16)) }
        if let waits {
            let times = waits.count == 1 ? "" : " \(waits.count)×"
            parts.append(
                "waited\(times) (\(PlanResult.cut(waits.reason, 70)))"
                    + (waits.until.map { " until \(clock($0).suffix(5))" } ?? ""))
        }
        if event.outcome != .deferred {
            if waits != nil {
                parts.append("\(event.outcome == .done ? "sent" : event.outcome.rawValue) \(clock(event.time))")
            }
            if var reason = event.reason {
                // `id 38fa6595-e6c5-…`: the id's first block tells it apart; --json has it whole.
                if reason.hasPrefix("id "), reason.count > 11 { reason = String(reason.prefix(11)) }
                parts.append(PlanResult.cut(reason, 80))
            }
        } else if waits == nil {
            parts.append(event.reason ?? "deferred")
        }
        return parts.joined(separator: "; ")
    }
}
