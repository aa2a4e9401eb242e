import Foundation
import MoltbookAPI
import MoltipassEngine

extension PlanResult {
    /// The terminal table: one line per event in the order of their instants, every time in
    /// `zone`, then the summary. `colour` adds ANSI colours to the outcome column.
    public func text(colour: Bool, zone display: PlanDisplayZone? = nil) -> String {
        let display = display ?? defaultDisplayZone
        let zone = display.zone
        var lines: [String] = []
        lines.append(
            "plan \(Self.iso(scenario.from)) → \(Self.iso(scenario.to)), seed \(scenario.seed), server \(scenario.serverProfile)"
                + (scenario.newAgent ? ", new agent" : "") + ", feed \(scenario.feed) (\(scenario.feedPosts) posts)"
                + (scenario.stateCopied ? ", from a copy of the state" : ", from an empty state"))
        if let skipped = scenario.stateSkipped { lines.append(skipped) }
        lines.append(display.header)
        lines.append("")
        let header = ["time", "agent", "action", "target", "title / excerpt", "outcome", "limit or reason"]
        var rows: [[String]] = []
        var outcomes: [Outcome] = []
        for event in eventsByTime {
            var reason = event.reason ?? ""
            if let until = event.until, event.outcome == .deferred { reason += " (until \(Self.local(until, zone)))" }
            rows.append([
                Self.local(event.time, zone), event.agent, event.action, Self.targetText(event),
                Self.cut(event.title ?? event.excerpt ?? "", 40), event.outcome.rawValue, Self.cut(reason, 70),
            ])
            outcomes.append(event.outcome)
        }
        lines += Self.table(header: header, rows: rows) { row, cell, text in
            guard colour, cell == 5, row >= 0 else { return text }
            return Self.colour(outcomes[row]) + text + "\u{1B}[0m"
        }
        lines.append("")
        if let conversations, !conversations.isEmpty {
            let answered = conversations.filter {
                $0.kind != "skipped" && $0.kind != "mark_read" && $0.outcome == .done
            }
            let passed = conversations.filter { $0.kind == "skipped" }
            lines.append("conversations: \(answered.count) answered, \(passed.count) passed over")
            let rows = conversations.map { line in
                [
                    Self.local(line.time, zone), line.agent, line.kind, Self.cut(line.trigger, 44),
                    Self.cut(line.answer ?? "", 36), line.outcome.rawValue, Self.cut(line.reason ?? "", 60),
                ]
            }
            lines += Self.table(
                header: ["time", "agent", "kind", "trigger", "answer", "outcome", "reason"], rows: rows
            ) { _, _, text in text }
            lines.append("")
        }
        let summaryHeader = [
            "agent", "class", "executed", "deferred", "skipped", "failed", "429s", "challenges",
            "server limits: peak/limit",
        ]
        let summaryRows = summary.map { line in
            [
                line.agent, line.limitClass, "\(line.executed)", "\(line.deferred)", "\(line.skipped)",
                "\(line.failed)", "\(line.rateLimited)", "\(line.challenges)",
                line.budget.map { "\($0.rule) \($0.peak)/\($0.limit)" }.joined(separator: ", "),
            ]
        }
        lines += Self.table(header: summaryHeader, rows: summaryRows) { _, _, text in text }
        lines.append("")
        lines.append(
            "server: \(server.requests) requests, \(server.rateLimited) × 429, \(server.challengesIssued) challenges "
                + "(\(server.challengesVerified) answered), \(server.faultsInjected) faults; \(server.passes) passes")
        return lines.joined(separator: "\n")
    }

    package static func table(header: [String], rows: [[String]], decorate: (Int, Int, String) -> String) -> [String] {
        var widths = header.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func render(_ row: [String], _ number: Int) -> String {
            row.enumerated().map { index, cell in
                let padded =
                    index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
                return decorate(number, index, padded)
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        return [render(header, -1)] + rows.enumerated().map { render($1, $0) }
    }

    static func colour(_ outcome: Outcome) -> String {
        switch outcome {
        case .done: "\u{1B}[32m"
        case .deferred: "\u{1B}[33m"
        case .skipped: "\u{1B}[2m"
        case .failed, .uncertain: "\u{1B}[31m"
        case .challenged: "\u{1B}[35m"
        }
    }

    typealias Outcome = Event.Outcome

    package static func cut(_ text: String, _ limit: Int) -> String {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.count > limit ? String(line.prefix(limit - 1)) + "…" : line
    }

    static func iso(_ date: Date) -> String { MoltbookDateText.iso(date) }

    /// `2026-03-02 09:30:00 +01:00` in `zone` (what `DateFormatter` gives for
    /// `yyyy-MM-dd HH:mm:ss xxx`), by calendar arithmetic: a formatter made per event was most of
    /// the time of a long plan's table and page.
    package static func local(_ date: Date, _ zone: TimeZone) -> String {
        MoltbookDate.formatLocal(date, offset: zone.secondsFromGMT(for: date))
    }

    /// Time zones by identifier, looked up once per table rather than once per event.
    struct Zones {
        private var known: [String: TimeZone] = [:]

        mutating func zone(_ identifier: String?) -> TimeZone {
            let name = identifier ?? "UTC"
            if let zone = known[name] { return zone }
            let zone = TimeZone(identifier: name) ?? .gmt
            known[name] = zone
            return zone
        }
    }
}

extension String {
    /// Without trailing spaces (a table row's padding after an empty last cell); a row never
    /// starts with one.
    func trimmingTrailingSpaces() -> String {
        var text = Substring(self)
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
