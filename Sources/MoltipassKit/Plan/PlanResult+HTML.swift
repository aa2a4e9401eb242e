import Foundation

extension PlanResult {
    /// A self-contained page (well-formed XHTML, no external resources): an SVG timeline with
    /// one lane per agent and class, actions as marks, deferrals as bars to the time they wait
    /// for, and the rolling 24-hour use of the class as a line; then the summary and the table.
    public func html(zone display: PlanDisplayZone? = nil) -> String {
        let lanes = laneKeys()
        let width = 1_200.0
        let left = 210.0
        let laneHeight = 46.0
        let top = 30.0
        let height = top + Double(lanes.count) * laneHeight + 20
        let span = max(scenario.to.timeIntervalSince(scenario.from), 1)
        func x(_ date: Date) -> Double {
            left + (width - left - 10) * min(max(date.timeIntervalSince(scenario.from) / span, 0), 1)
        }
        let zone = TimeZone(identifier: timeZones.values.sorted().first ?? "UTC") ?? .gmt
        var svg: [String] = []
        svg.append(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
                + "viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"plan timeline\">")
        // Day lines and labels in the first agent's zone.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var day = calendar.startOfDay(for: scenario.from)
        let dayStep: Double = span > 20 * 86_400 ? 7 : 1
        while day <= scenario.to {
            if day >= scenario.from {
                let position = Self.number(x(day))
                svg.append(
                    "<line class=\"day\" x1=\"\(position)\" y1=\"\(Int(top) - 8)\" x2=\"\(position)\" y2=\"\(Int(height) - 18)\"/>"
                )
                let label = Self.local(day, zone).prefix(10)
                svg.append(
                    "<text class=\"axis\" x=\"\(position)\" y=\"\(Int(top) - 12)\">\(Self.escape(String(label)))</text>"
                )
            }
            day = calendar.date(byAdding: .day, value: Int(dayStep), to: day) ?? scenario.to.addingTimeInterval(1)
        }
        for (index, lane) in lanes.enumerated() {
            let y0 = top + Double(index) * laneHeight
            let mid = y0 + laneHeight / 2
            svg.append(
                "<rect class=\"lane\(index % 2)\" x=\"0\" y=\"\(Self.number(y0))\" width=\"\(Int(width))\" height=\"\(Int(laneHeight))\"/>"
            )
            svg.append(
                "<text class=\"label\" x=\"6\" y=\"\(Self.number(mid + 4))\">\(Self.escape("\(lane.agent) · \(lane.limitClass)"))</text>"
            )
            let laneEvents = events.filter { $0.agent == lane.agent && $0.limitClass == lane.limitClass }
            // Rolling 24 h use of the class (done actions), scaled to the lane.
            let done = laneEvents.filter { $0.outcome == .done || $0.outcome == .challenged }.map(\.time)
            if !done.isEmpty {
                let limit = summary.first { $0.agent == lane.agent && $0.limitClass == lane.limitClass }?
                    .budget.first { $0.periodSeconds >= 86_400 }?.limit
                let counts = Self.rolling(done, window: 86_400)
                let ceiling = Double(max(limit ?? 0, counts.map(\.1).max() ?? 1, 1))
                var points = ["\(Self.number(x(scenario.from))),\(Self.number(y0 + laneHeight - 3))"]
                var last = 0
                for (time, count) in counts {
                    let yLast = y0 + laneHeight - 3 - (laneHeight - 8) * Double(last) / ceiling
                    let yNow = y0 + laneHeight - 3 - (laneHeight - 8) * Double(count) / ceiling
                    points.append("\(Self.number(x(time))),\(Self.number(yLast))")
                    points.append("\(Self.number(x(time))),\(Self.number(yNow))")
                    last = count
                }
                svg.append("<polyline class=\"budget\" points=\"\(points.joined(separator: " "))\"/>")
            }
            for event in laneEvents {
                let position = Self.number(x(event.time))
                let tip = Self.escape(
                    "\(Self.local(event.time, zone)) \(event.action) \(event.outcome.rawValue)"
                        + (event.title.map { " “\($0)”" } ?? "") + (event.reason.map { " — \($0)" } ?? ""))
                switch event.outcome {
                case .deferred:
                    let end = Self.number(x(event.until ?? event.time))
                    svg.append(
                        "<line class=\"deferred\" x1=\"\(position)\" y1=\"\(Self.number(mid + 6))\" x2=\"\(end)\" y2=\"\(Self.number(mid + 6))\"><title>\(tip)</title></line>"
                    )
                case .done, .challenged:
                    svg.append(
                        "<circle class=\"\(event.outcome.rawValue)\" cx=\"\(position)\" cy=\"\(Self.number(mid - 4))\" r=\"3\"><title>\(tip)</title></circle>"
                    )
                case .skipped, .failed, .uncertain:
                    svg.append(
                        "<rect class=\"\(event.outcome.rawValue)\" x=\"\(Self.number(x(event.time) - 2.5))\" y=\"\(Self.number(mid - 6.5))\" width=\"5\" height=\"5\"><title>\(tip)</title></rect>"
                    )
                }
            }
        }
        svg.append("</svg>")

        var rows: [String] = []
        var zones = Zones()
        for event in events {
            let eventZone = zones.zone(timeZones[event.agent])
            let cells = [
                Self.local(event.time, eventZone), event.agent, event.action, event.target ?? event.submolt ?? "",
                event.title ?? event.excerpt ?? "", event.outcome.rawValue,
                (event.reason ?? "") + (event.until.map { " (until \(Self.local($0, eventZone)))" } ?? ""),
            ]
            rows.append(
                "<tr class=\"\(event.outcome.rawValue)\">" + cells.map { "<td>\(Self.escape($0))</td>" }.joined()
                    + "</tr>")
        }
        var summaryRows: [String] = []
        for line in summary {
            let cells = [
                line.agent, line.limitClass, "\(line.executed)", "\(line.deferred)", "\(line.skipped)",
                "\(line.failed)",
                "\(line.rateLimited)", "\(line.challenges)",
                line.budget.map { "\($0.rule) \($0.peak)/\($0.limit)" }.joined(separator: ", "),
            ]
            summaryRows.append("<tr>" + cells.map { "<td>\(Self.escape($0))</td>" }.joined() + "</tr>")
        }
        let title = Self.escape("moltipass plan \(Self.iso(scenario.from)) → \(Self.iso(scenario.to))")
        let scenarioText = Self.escape(
            "seed \(scenario.seed), server \(scenario.serverProfile), challenge rate \(scenario.challengeRate), "
                + "fault rate \(scenario.faultRate)\(scenario.newAgent ? ", new agent" : ""), feed \(scenario.feed) "
                + "(\(scenario.feedPosts) posts); \(server.requests) requests, \(server.rateLimited) × 429")
        return """
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
            <head>
            <meta charset="utf-8"/>
            <title>\(title)</title>
            <style>
            body { font: 13px/1.4 system-ui, sans-serif; margin: 16px; color: #222; }
            .lane0 { fill: #fafafa; } .lane1 { fill: #f0f0f4; }
            .day { stroke: #ccc; stroke-width: 1; } .axis { font-size: 10px; fill: #666; }
            .label { font-size: 11px; fill: #333; }
            circle.done { fill: #2a9d3a; } circle.challenged { fill: #9b3fb5; }
            line.deferred { stroke: #e8a317; stroke-width: 3; stroke-opacity: 0.6; }
            rect.failed, rect.uncertain { fill: #d33; } rect.skipped { fill: #aaa; }
            polyline.budget { fill: none; stroke: #4a78c2; stroke-width: 1; stroke-opacity: 0.7; }
            table { border-collapse: collapse; margin-top: 12px; } td, th { padding: 2px 8px; text-align: left; }
            tr.deferred td { color: #a06d00; } tr.failed td { color: #b00; } tr.skipped td { color: #888; }
            </style>
            </head>
            <body>
            <h1>\(title)</h1>
            <p>\(scenarioText)</p>
            <p>Marks: green done, purple verification challenge, orange bar deferred until, red failed, grey skipped; \
            blue line: actions in the last 24 hours (scaled to the daily limit).</p>
            \(svg.joined(separator: "\n"))
            <h2>Summary</h2>
            <table>
            <tr><th>agent</th><th>class</th><th>executed</th><th>deferred</th><th>skipped</th><th>failed</th>\
            <th>429s</th><th>challenges</th><th>budget peak/limit</th></tr>
            \(summaryRows.joined(separator: "\n"))
            </table>
            <h2>Timeline</h2>
            <table>
            <tr><th>time</th><th>agent</th><th>action</th><th>target</th><th>title / excerpt</th><th>outcome</th>\
            <th>limit or reason</th></tr>
            \(rows.joined(separator: "\n"))
            </table>
            </body>
            </html>

            """
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

    /// The count of `times` in the trailing `window`, at each time something enters or leaves it.
    static func rolling(_ times: [Date], window: TimeInterval) -> [(Date, Int)] {
        let sorted = times.sorted()
        var changes: [(Date, Int)] = sorted.map { ($0, 1) } + sorted.map { ($0.addingTimeInterval(window), -1) }
        changes.sort { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }
        var count = 0
        return changes.map { change in
            count += change.1
            return (change.0, count)
        }
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
