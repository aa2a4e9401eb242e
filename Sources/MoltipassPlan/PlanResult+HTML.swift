import Foundation
import MoltipassEngine

extension PlanResult {
    /// A self-contained page (well-formed XHTML, no external resources): the timeline chart
    /// with its legend, the problems found, totals per day, the summary per agent and class, and
    /// a table that filters by agent, outcome and text (a few lines of inline script). Times are
    /// in `zone` throughout. A month of a busy agent stays well under 1 MB: the chart counts per
    /// time bin, and the table has one row per write (its deferrals folded in) and one per run
    /// of identical items of a day.
    public func html(zone display: PlanDisplayZone? = nil) -> String {
        let display = display ?? defaultDisplayZone
        let zone = display.zone
        let ordered = eventsByTime
        let title = Self.escape("moltipass plan \(Self.iso(scenario.from)) → \(Self.iso(scenario.to))")
        let scenarioText = Self.escape(
            "seed \(scenario.seed), server \(scenario.serverProfile), challenge rate \(scenario.challengeRate), "
                + "fault rate \(scenario.faultRate)\(scenario.newAgent ? ", new agent" : ""), feed \(scenario.feed) "
                + "(\(scenario.feedPosts) posts), "
                + (scenario.stateCopied ? "from a copy of the state" : "from an empty state")
                + "; \(server.requests) requests, \(server.rateLimited) × 429; \(display.header)")
        var page: [String] = []
        page.append(
            """
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
            <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <title>\(title)</title>
            <style>\(Self.style)</style>
            </head>
            <body>
            <h1>\(title)</h1>
            <p>\(scenarioText)</p>
            """)
        if let skipped = scenario.stateSkipped { page.append("<p class=\"note\">\(Self.escape(skipped))</p>") }
        page.append(Self.legend)
        page.append(chart(zone: zone))
        page.append("<h2>Problems</h2>")
        page.append(problemsList(ordered, zone: zone))
        page.append("<h2>Per day</h2>")
        page.append(dayTotals(ordered, zone: zone))
        page.append("<h2>Summary</h2>")
        page.append(summaryTable())
        page.append("<h2>Timeline</h2>")
        page.append(timeline(ordered, zone: zone))
        page.append("<script>//<![CDATA[\n\(Self.script)\n//]]></script>")
        page.append("</body>\n</html>\n")
        return page.joined(separator: "\n")
    }

    static let style = """
        body { font: 13px/1.4 system-ui, sans-serif; margin: 16px; color: #222; max-width: 1400px; }
        h1 { font-size: 18px; } h2 { font-size: 15px; margin-top: 22px; }
        svg.chart { width: 100%; height: auto; display: block; }
        .lane0 { fill: #fafafa; } .lane1 { fill: #f0f0f4; }
        .day { stroke: #ccc; stroke-width: 1; } .axis, .tick { font-size: 10px; fill: #666; }
        .label { font-size: 11px; fill: #333; } .label.sub { fill: #777; }
        rect.done { fill: #2a9d3a; } rect.challenged { fill: #9b3fb5; } rect.waiting { fill: #e8a317; }
        rect.failed { fill: #d33; } rect.skipped { fill: #999; }
        polyline.budget { fill: none; stroke: #4a78c2; stroke-width: 1.2; }
        line.yaxis { stroke: #4a78c2; stroke-width: 1; } text.tick { fill: #4a78c2; }
        line.limit { stroke: #4a78c2; stroke-dasharray: 4 3; stroke-width: 1; }
        .legend { display: flex; flex-wrap: wrap; gap: 14px; margin: 8px 0; }
        .legend span { display: inline-flex; align-items: center; gap: 5px; }
        table { border-collapse: collapse; margin-top: 8px; } td, th { padding: 2px 8px; text-align: left; }
        th { border-bottom: 1px solid #ccc; } td.n { text-align: right; }
        tr.deferred td { color: #a06d00; } tr.failed td, tr.uncertain td { color: #b00; } tr.skipped td { color: #888; }
        .note { color: #a06d00; } .filters { margin: 6px 0; display: flex; gap: 10px; align-items: center; }
        ul.problems li { margin-bottom: 4px; } ul.problems ul { color: #555; }
        """

    /// Swatches for every mark of the chart.
    static let legend = """
        <div class="legend">\
        <span><svg width="14" height="12"><rect class="done" x="2" y="2" width="10" height="10"/></svg>done (per time bin)</span>\
        <span><svg width="14" height="12"><rect class="challenged" x="2" y="2" width="10" height="10"/></svg>done with a verification challenge</span>\
        <span><svg width="14" height="12"><rect class="waiting" x="2" y="2" width="10" height="10"/></svg>writes waiting (deferred; height = how many)</span>\
        <span><svg width="14" height="12"><rect class="failed" x="2" y="4" width="10" height="4"/></svg>failed or uncertain</span>\
        <span><svg width="14" height="12"><rect class="skipped" x="2" y="4" width="10" height="4"/></svg>skipped</span>\
        <span><svg width="22" height="12"><line class="yaxis" x1="1" y1="6" x2="21" y2="6"/></svg>actions in the trailing 24 h (right axis)</span>\
        <span><svg width="22" height="12"><line class="limit" x1="1" y1="6" x2="21" y2="6"/></svg>the server's daily limit</span>\
        </div>
        """

    /// The filter: agent, outcome and text; hides the rows that do not match.
    static let script = """
        function planFilter() {
          var a = document.getElementById('f-agent').value, o = document.getElementById('f-outcome').value;
          var t = document.getElementById('f-text').value.toLowerCase(), shown = 0;
          var rows = document.getElementById('timeline').tBodies[0].rows;
          for (var i = 0; i < rows.length; i++) {
            var r = rows[i], ok = (!a || r.cells[1].textContent === a) && (!o || r.className === o) &&
              (!t || r.textContent.toLowerCase().indexOf(t) >= 0);
            r.style.display = ok ? '' : 'none';
            if (ok) shown++;
          }
          document.getElementById('f-count').textContent = shown + ' of ' + rows.length + ' rows';
        }
        ['f-agent', 'f-outcome', 'f-text'].forEach(function (id) {
          document.getElementById(id).addEventListener('input', planFilter);
        });
        planFilter();
        """

    /// What needs a look: failures, unknown outcomes, duplicates skipped, queues run dry,
    /// schedules faster than the limits, selectors that found nothing, deferrals, 429s.
    func problemsList(_ ordered: [Event], zone: TimeZone) -> String {
        struct Problem {
            var title: String
            var examples: [String] = []
            var count = 0
        }
        func clock(_ date: Date) -> String { String(Self.local(date, zone).prefix(16)) }
        func example(_ event: Event) -> String {
            let what = [
                event.action, Self.targetText(event, limit: 40), Self.cut(event.title ?? event.excerpt ?? "", 40),
            ]
            .filter { !$0.isEmpty }.joined(separator: " ")
            let job = event.job.isEmpty ? "" : " \(event.recipe)/\(event.job)"
            return "\(clock(event.time)) \(event.agent)\(job): \(what)"
                + (event.reason.map { " — \(Self.cut($0, 90))" } ?? "")
        }
        let kinds: [(String, (Event) -> Bool)] = [
            ("writes failed", { $0.outcome == .failed }),
            ("writes with an unknown outcome (read back by the next run)", { $0.outcome == .uncertain }),
            (
                "posts or comments skipped as repeats of the agent's earlier content",
                { $0.outcome == .skipped && ($0.reason ?? "").hasPrefix("duplicate content") }
            ),
            (
                "content queues ran dry",
                { $0.outcome == .skipped && ($0.reason ?? "").contains("content queue") }
            ),
            (
                "occurrences skipped: the schedule is faster than the limits",
                { ($0.reason ?? "").contains("writes are still waiting") }
            ),
            (
                "writes expired unsent: the schedule is faster than the limits (each gave way to the next occurrence's)",
                { $0.outcome == .skipped && ($0.reason ?? "").hasPrefix("expired ") }
            ),
            ("writes dropped: their job is in none of the recipes", { ($0.reason ?? "").hasPrefix("orphaned") }),
            ("occurrences missed", { $0.outcome == .skipped && ($0.reason ?? "").contains("missed") }),
            ("selections that found no post", { ($0.reason ?? "").contains("found no post") }),
        ]
        var problems = kinds.map { Problem(title: $0.0) }
        var deferredWrites: Set<String> = []
        var longest: (TimeInterval, Event)?
        var rules: [String: Int] = [:]
        for event in ordered {
            for (index, kind) in kinds.enumerated() where kind.1(event) {
                problems[index].count += 1
                if problems[index].examples.count < 3 { problems[index].examples.append(example(event)) }
                break
            }
            if event.outcome == .deferred {
                let identity = event.key ?? "\(event.agent)|\(event.job)|\(event.time.timeIntervalSince1970)"
                if deferredWrites.insert(identity).inserted {
                    let rule = (event.reason ?? "").split(separator: ":").prefix(2).joined(separator: ":")
                    rules[rule, default: 0] += 1
                }
                if let until = event.until, until.timeIntervalSince(event.time) > (longest?.0 ?? 0) {
                    longest = (until.timeIntervalSince(event.time), event)
                }
            }
        }
        var items: [String] = []
        for problem in problems where problem.count > 0 {
            let more =
                problem.count > problem.examples.count
                ? "<li>… \(problem.count - problem.examples.count) more</li>" : ""
            items.append(
                "<li><b>\(problem.count) \(Self.escape(problem.title))</b><ul>"
                    + problem.examples.map { "<li>\(Self.escape($0))</li>" }.joined() + more + "</ul></li>")
        }
        if !deferredWrites.isEmpty {
            let byRule = rules.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(6)
                .map { "<li>\($0.value) by \(Self.escape($0.key))</li>" }.joined()
            let wait = longest.map { "; the longest wait \(Self.duration($0.0)) (\(Self.escape(example($0.1))))" } ?? ""
            items.append("<li><b>\(deferredWrites.count) writes deferred</b>\(wait)<ul>\(byRule)</ul></li>")
        }
        if server.rateLimited > 0 {
            items.append(
                "<li><b>\(server.rateLimited) requests refused by the server (429)</b>: the server is stricter than "
                    + "the limits the engine knew</li>")
        }
        if items.isEmpty { return "<p>None: every write went when it was due.</p>" }
        return "<ul class=\"problems\">\n" + items.joined(separator: "\n") + "\n</ul>"
    }

    /// Per day (in `zone`): actions done per class, and the writes deferred, skipped and failed.
    func dayTotals(_ ordered: [Event], zone: TimeZone) -> String {
        let classes = ["post", "comment", "vote", "follow", "subscribe", "verify"].filter { limitClass in
            ordered.contains { $0.limitClass == limitClass }
        }
        var days: [String] = []
        var done: [String: [String: Int]] = [:]
        var other: [String: [Outcome: Int]] = [:]
        var seenDeferred: Set<String> = []
        for event in ordered {
            let day = String(Self.local(event.time, zone).prefix(10))
            if done[day] == nil {
                days.append(day)
                done[day] = [:]
            }
            switch event.outcome {
            case .done, .challenged: done[day, default: [:]][event.limitClass, default: 0] += 1
            case .deferred:
                if seenDeferred.insert(event.key ?? "\(event.time.timeIntervalSince1970)|\(event.job)").inserted {
                    other[day, default: [:]][.deferred, default: 0] += 1
                }
            default: other[day, default: [:]][event.outcome, default: 0] += 1
            }
        }
        let outcomes: [Outcome] = [.deferred, .skipped, .failed, .uncertain]
        let header =
            "<tr><th>day</th>" + classes.map { "<th>\($0) done</th>" }.joined()
            + "<th>deferred</th><th>skipped</th><th>failed</th><th>uncertain</th></tr>"
        let rows = days.map { day in
            "<tr><td>\(day)</td>" + classes.map { "<td class=\"n\">\(done[day]?[$0] ?? 0)</td>" }.joined()
                + outcomes.map { "<td class=\"n\">\(other[day]?[$0] ?? 0)</td>" }.joined() + "</tr>"
        }
        return "<table>\n\(header)\n" + rows.joined(separator: "\n") + "\n</table>"
    }

    func summaryTable() -> String {
        var rows: [String] = []
        for line in summary {
            let cells = [
                line.agent, line.limitClass, "\(line.executed)", "\(line.deferred)", "\(line.skipped)",
                "\(line.failed)", "\(line.rateLimited)", "\(line.challenges)",
                line.budget.map { "\($0.rule) \($0.peak)/\($0.limit)" }.joined(separator: ", "),
            ]
            rows.append("<tr>" + cells.map { "<td>\(Self.escape($0))</td>" }.joined() + "</tr>")
        }
        return """
            <table>
            <tr><th>agent</th><th>class</th><th>executed</th><th>deferred</th><th>skipped</th><th>failed</th>\
            <th>429s</th><th>challenges</th><th>server limits: peak/limit</th></tr>
            \(rows.joined(separator: "\n"))
            </table>
            """
    }

    /// The filter controls and the table, one row per write or run of identical items.
    func timeline(_ ordered: [Event], zone: TimeZone) -> String {
        let rows = PlanPageRows(events: ordered, zone: zone).rows
        let agents = Array(Set(rows.map(\.agent))).sorted()
        let outcomes = Outcome.allCases.filter { outcome in rows.contains { $0.outcome == outcome } }
        var lines: [String] = []
        lines.append(
            "<div class=\"filters\"><label>agent <select id=\"f-agent\"><option value=\"\">all</option>"
                + agents.map { "<option>\(Self.escape($0))</option>" }.joined()
                + "</select></label><label>outcome <select id=\"f-outcome\"><option value=\"\">all</option>"
                + outcomes.map { "<option>\($0.rawValue)</option>" }.joined()
                + "</select></label><label>text <input id=\"f-text\" type=\"search\"/></label>"
                + "<span id=\"f-count\">\(rows.count) rows</span></div>")
        lines.append(
            "<table id=\"timeline\"><thead><tr><th>time</th><th>agent</th><th>job</th><th>action</th><th>target</th>"
                + "<th>title / excerpt</th><th>outcome</th><th>what happened</th></tr></thead><tbody>")
        for row in rows {
            let cells = [
                String(Self.local(row.time, zone).prefix(19)), row.agent, row.job, row.action, row.target, row.text,
                row.outcome.rawValue, row.detail,
            ]
            lines.append(
                "<tr class=\"\(row.outcome.rawValue)\">" + cells.map { "<td>\(Self.escape($0))</td>" }.joined()
                    + "</tr>")
        }
        lines.append("</tbody></table>")
        return lines.joined(separator: "\n")
    }

    /// The agent × class lanes that have events, sorted.
    func laneKeys() -> [(agent: String, limitClass: String)] {
        var seen: Set<String> = []
        var lanes: [(agent: String, limitClass: String)] = []
        for event in events where seen.insert("\(event.agent)|\(event.limitClass)").inserted {
            lanes.append((event.agent, event.limitClass))
        }
        return lanes.sorted { ($0.agent, $0.limitClass) < ($1.agent, $1.limitClass) }
    }

    /// `20 s`, `45 min`, `2 h 30 min`, `3 d 4 h`.
    static func duration(_ seconds: TimeInterval) -> String {
        if seconds < 60 { return "\(Int(seconds.rounded())) s" }
        let minutes = Int((seconds / 60).rounded())
        if minutes < 60 { return "\(minutes) min" }
        if minutes < 48 * 60 { return "\(minutes / 60) h" + (minutes % 60 == 0 ? "" : " \(minutes % 60) min") }
        return "\(minutes / 1_440) d" + ((minutes % 1_440) / 60 == 0 ? "" : " \((minutes % 1_440) / 60) h")
    }

    static func number(_ value: Double) -> String { String(format: "%.1f", value) }

    /// Text for XML content and attributes.
    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default:
                if character.unicodeScalars.allSatisfy({ $0.value >= 0x20 || $0 == "\t" }) { result.append(character) }
            }
        }
        return result
    }
}
