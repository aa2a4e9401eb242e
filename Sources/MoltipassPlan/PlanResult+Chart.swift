import Foundation
import MoltipassEngine

extension PlanResult {
    /// The page's timeline: an SVG that scales to the page's width (viewBox), one lane per agent
    /// and class. Per time bin: green bars for done actions (purple when challenged), orange bars
    /// for the writes waiting (the count, so overlapping deferrals add up instead of hiding each
    /// other), red and grey squares for failures and skips; a blue line for the class's actions
    /// in the trailing 24 hours against the right-hand axis (with the server's daily limit dashed
    /// when it has one). Every mark's tooltip says what it counts.
    func chart(zone: TimeZone) -> String {
        let lanes = laneKeys()
        let geometry = ChartGeometry(from: scenario.from, to: scenario.to, lanes: lanes.count)
        var svg: [String] = []
        svg.append(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 \(Int(geometry.width)) "
                + "\(Int(geometry.height))\" preserveAspectRatio=\"xMinYMin meet\" role=\"img\" "
                + "aria-label=\"plan timeline\">")
        svg += dayLines(geometry, zone: zone)
        var byLane: [String: [Event]] = [:]
        for event in events { byLane["\(event.agent)|\(event.limitClass)", default: []].append(event) }
        for (index, lane) in lanes.enumerated() {
            svg += self.lane(
                index: index, lane: lane, events: byLane["\(lane.agent)|\(lane.limitClass)"] ?? [],
                geometry: geometry, zone: zone)
        }
        svg.append("</svg>")
        return svg.joined(separator: "\n")
    }

    /// The vertical day lines and their labels (every day, a label every few days on long plans).
    func dayLines(_ geometry: ChartGeometry, zone: TimeZone) -> [String] {
        var svg: [String] = []
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var day = calendar.startOfDay(for: scenario.from)
        let days = geometry.span / 86_400
        let labelEvery = days > 21 ? 7 : days > 10 ? 2 : 1
        var count = 0
        while day <= scenario.to {
            if day >= scenario.from {
                let x = Self.number(geometry.x(day))
                svg.append(
                    "<line class=\"day\" x1=\"\(x)\" y1=\"\(Int(geometry.top) - 6)\" x2=\"\(x)\" "
                        + "y2=\"\(Int(geometry.height) - 4)\"/>")
                // A label needs room before the axis on the right (a cut label reads as a bug).
                if count % labelEvery == 0, geometry.x(day) < geometry.right - 56 {
                    let label = Self.local(day, zone).prefix(10)
                    svg.append("<text class=\"axis\" x=\"\(x)\" y=\"\(Int(geometry.top) - 10)\">\(label)</text>")
                }
                count += 1
            }
            guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { break }
            day = next
        }
        return svg
    }

    /// One lane's marks.
    func lane(
        index: Int, lane: (agent: String, limitClass: String), events: [Event], geometry: ChartGeometry,
        zone: TimeZone
    ) -> [String] {
        let y0 = geometry.top + Double(index) * ChartGeometry.laneHeight
        let bottom = y0 + ChartGeometry.laneHeight - 4
        var svg: [String] = []
        svg.append(
            "<rect class=\"lane\(index % 2)\" x=\"0\" y=\"\(Self.number(y0))\" width=\"\(Int(geometry.width))\" "
                + "height=\"\(Int(ChartGeometry.laneHeight))\"/>")
        svg.append(
            "<text class=\"label\" x=\"6\" y=\"\(Self.number(y0 + 20))\">\(Self.escape(lane.agent))</text>"
                + "<text class=\"label sub\" x=\"6\" y=\"\(Self.number(y0 + 34))\">\(Self.escape(lane.limitClass))</text>"
        )
        let bins = geometry.bins
        var done = [Int](repeating: 0, count: bins)
        var challenged = [Int](repeating: 0, count: bins)
        var failed = [Int](repeating: 0, count: bins)
        var skipped = [Int](repeating: 0, count: bins)
        var waiting = [Int](repeating: 0, count: bins)
        var doneTimes: [Date] = []
        // A write waits from its first deferral to its next other item (or the end).
        var waitingSince: [String: Date] = [:]
        func wait(from start: Date, to end: Date) {
            for bin in geometry.bin(start)...max(geometry.bin(start), geometry.bin(end)) { waiting[bin] += 1 }
        }
        for event in events {
            let bin = geometry.bin(event.time)
            switch event.outcome {
            case .done: done[bin] += 1
            case .challenged: challenged[bin] += 1
            case .failed, .uncertain: failed[bin] += 1
            case .skipped: skipped[bin] += 1
            case .deferred:
                if let key = event.key {
                    if waitingSince[key] == nil { waitingSince[key] = event.time }
                } else {
                    wait(from: event.time, to: event.until ?? event.time)
                }
            }
            if event.outcome == .done || event.outcome == .challenged { doneTimes.append(event.time) }
            if event.outcome != .deferred, let key = event.key, let since = waitingSince.removeValue(forKey: key) {
                wait(from: since, to: event.time)
            }
        }
        for (_, since) in waitingSince { wait(from: since, to: scenario.to) }

        // Done (and challenged) per bin: bars up from the lane's middle line.
        let most = max(1, zip(done, challenged).map { $0 + $1 }.max() ?? 1)
        let barTop = y0 + 8
        let barBase = y0 + 30
        for bin in 0..<bins where done[bin] + challenged[bin] > 0 {
            let total = done[bin] + challenged[bin]
            let height = max(1.5, (barBase - barTop) * Double(total) / Double(most))
            let tip =
                "\(geometry.binLabel(bin, zone)): \(total) done"
                + (challenged[bin] > 0 ? ", \(challenged[bin]) challenged" : "")
            svg.append(
                "<rect class=\"\(challenged[bin] > 0 ? "challenged" : "done")\" x=\"\(Self.number(geometry.binX(bin)))\" "
                    + "y=\"\(Self.number(barBase - height))\" width=\"\(Self.number(geometry.binWidth))\" "
                    + "height=\"\(Self.number(height))\"><title>\(tip)</title></rect>")
        }
        // Waiting writes per bin: bars down from the middle line, their height the count.
        let deepest = max(1, waiting.max() ?? 1)
        for bin in 0..<bins where waiting[bin] > 0 {
            let height = max(1.5, (bottom - barBase - 4) * Double(waiting[bin]) / Double(deepest))
            svg.append(
                "<rect class=\"waiting\" x=\"\(Self.number(geometry.binX(bin)))\" y=\"\(Self.number(barBase + 2))\" "
                    + "width=\"\(Self.number(geometry.binWidth))\" height=\"\(Self.number(height))\"><title>"
                    + "\(geometry.binLabel(bin, zone)): \(waiting[bin]) waiting</title></rect>")
        }
        if (waiting.max() ?? 0) > 1 {
            svg.append(
                "<text class=\"axis\" x=\"\(Self.number(geometry.left - 4))\" y=\"\(Self.number(bottom))\" "
                    + "text-anchor=\"end\">\(deepest) waiting</text>")
        }
        for (counts, name) in [(failed, "failed"), (skipped, "skipped")] {
            for bin in 0..<bins where counts[bin] > 0 {
                let y = name == "failed" ? y0 + 2 : y0 + 2 + 5
                svg.append(
                    "<rect class=\"\(name)\" x=\"\(Self.number(geometry.binX(bin)))\" y=\"\(Self.number(y))\" "
                        + "width=\"\(Self.number(max(geometry.binWidth, 3)))\" height=\"4\"><title>"
                        + "\(geometry.binLabel(bin, zone)): \(counts[bin]) \(name == "failed" ? "failed or uncertain" : "skipped")"
                        + "</title></rect>")
            }
        }
        svg += budgetLine(lane: lane, times: doneTimes, y0: y0, bottom: bottom, geometry: geometry)
        return svg
    }

    /// The class's actions in the trailing 24 hours, per bin, against an axis on the right.
    func budgetLine(
        lane: (agent: String, limitClass: String), times: [Date], y0: Double, bottom: Double, geometry: ChartGeometry
    ) -> [String] {
        guard !times.isEmpty else { return [] }
        let limit = summary.first { $0.agent == lane.agent && $0.limitClass == lane.limitClass }?
            .budget.first { $0.periodSeconds == 86_400 }?.limit
        let sorted = times.sorted()
        var counts: [Int] = []
        var low = 0
        var high = 0
        for bin in 0..<geometry.bins {
            let end = geometry.binEnd(bin)
            while high < sorted.count, sorted[high] <= end { high += 1 }
            while low < high, sorted[low] <= end.addingTimeInterval(-86_400) { low += 1 }
            counts.append(high - low)
        }
        let ceiling = Double(max(limit ?? 0, counts.max() ?? 1, 1))
        let top = y0 + 6
        func y(_ value: Double) -> Double { bottom - (bottom - top) * value / ceiling }
        var points: [String] = []
        for (bin, count) in counts.enumerated() {
            points.append("\(Self.number(geometry.binX(bin))),\(Self.number(y(Double(count))))")
            points.append("\(Self.number(geometry.binX(bin) + geometry.binWidth)),\(Self.number(y(Double(count))))")
        }
        let axisX = geometry.right + 4
        var svg = [
            "<polyline class=\"budget\" points=\"\(points.joined(separator: " "))\"><title>\(Self.escape(lane.limitClass)) "
                + "in the trailing 24 h (right axis)</title></polyline>",
            "<line class=\"yaxis\" x1=\"\(Self.number(axisX))\" y1=\"\(Self.number(top))\" x2=\"\(Self.number(axisX))\" "
                + "y2=\"\(Self.number(bottom))\"/>",
            "<text class=\"tick\" x=\"\(Self.number(axisX + 3))\" y=\"\(Self.number(bottom))\">0</text>",
            "<text class=\"tick\" x=\"\(Self.number(axisX + 3))\" y=\"\(Self.number(top + 7))\">\(Int(ceiling))</text>",
        ]
        if let limit {
            svg.append(
                "<line class=\"limit\" x1=\"\(Self.number(geometry.left))\" y1=\"\(Self.number(y(Double(limit))))\" "
                    + "x2=\"\(Self.number(axisX))\" y2=\"\(Self.number(y(Double(limit))))\"><title>the server's limit: "
                    + "\(limit) per 24 h</title></line>")
        }
        return svg
    }
}

/// Where things go on the chart: the horizon across the plot area, cut into bins.
struct ChartGeometry {
    static let laneHeight = 56.0
    let width = 1_200.0
    let left = 150.0
    let top = 26.0
    let from: Date
    let span: TimeInterval
    let lanes: Int
    /// Bins across the plot: the shortest of 5 min … 6 h that leaves at most 340 of them.
    let bins: Int
    let binSeconds: Double

    init(from: Date, to: Date, lanes: Int) {
        self.from = from
        span = max(to.timeIntervalSince(from), 1)
        self.lanes = lanes
        let steps: [Double] = [300, 900, 1_800, 3_600, 7_200, 10_800, 21_600]
        let span = span
        binSeconds = steps.first { span / $0 <= 340 } ?? (span / 340).rounded(.up)
        bins = max(1, Int((span / binSeconds).rounded(.up)))
    }

    var right: Double { width - 40 }
    var height: Double { top + Double(lanes) * Self.laneHeight + 6 }
    var binWidth: Double { (right - left) * binSeconds / span }

    func x(_ date: Date) -> Double { left + (right - left) * min(max(date.timeIntervalSince(from) / span, 0), 1) }

    func bin(_ date: Date) -> Int { min(bins - 1, max(0, Int(date.timeIntervalSince(from) / binSeconds))) }

    func binX(_ bin: Int) -> Double { left + binWidth * Double(bin) }

    func binEnd(_ bin: Int) -> Date { from.addingTimeInterval(binSeconds * Double(bin + 1)) }

    /// `2026-03-02 01:00–02:00` in `zone`.
    func binLabel(_ bin: Int, _ zone: TimeZone) -> String {
        let start = PlanResult.local(from.addingTimeInterval(binSeconds * Double(bin)), zone)
        let end = PlanResult.local(binEnd(bin), zone)
        return "\(start.prefix(16))–\(end.dropFirst(11).prefix(5))"
    }
}
