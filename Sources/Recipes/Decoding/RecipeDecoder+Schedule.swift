import Foundation

extension RecipeDecoder {
    static let scheduleKeys = [
        "cron", "every", "at", "heartbeat", "start", "time_zone", "randomized_delay", "active_hours", "missed",
    ]
    /// `heartbeat:` bounds: Moltbook's heartbeat.md loop is meant to run every few tens of minutes.
    static let heartbeatRange = 300...86_400

    func decodeSchedule(_ node: YAMLNode) -> Trigger? {
        guard let fields = mapping(node, allowed: Self.scheduleKeys, what: "the schedule") else { return nil }
        let kinds = ["cron", "every", "at", "heartbeat"].filter { fields[$0] != nil }
        guard kinds.count == 1 else {
            error(
                node.mark, code: kinds.isEmpty ? "missing-key" : "conflict",
                kinds.isEmpty
                    ? "the schedule has no `cron`, `every`, `at` or `heartbeat`"
                    : "the schedule has both " + kinds.map { "`\($0)`" }.joined(separator: " and "),
                expected: "exactly one of `cron:`, `every:`, `at:` or `heartbeat:`")
            return nil
        }
        let zone = fields["time_zone"].flatMap { self.zone($0) } ?? timeZone
        var schedule: Schedule?
        if let cronNode = fields["cron"], let text = string(cronNode, what: "cron") {
            do {
                schedule = .cron(try CronExpression.parse(text))
            } catch {
                self.error(
                    mark(ofOffset: error.offset, in: cronNode), code: "schedule", error.message,
                    expected: error.expected, suggestion: error.suggestion)
            }
        }
        if let everyNode = fields["every"], let seconds = duration(everyNode, what: "every") {
            var origin = Schedule.defaultOrigin(in: zone)
            if let startNode = fields["start"], let start = instant(startNode, zone: zone, what: "start") {
                origin = start
            }
            schedule = .every(seconds: seconds, origin: origin)
        }
        // A heartbeat is `every:` with a phase of the agent's own (`Schedule.heartbeatOrigin`)
        // and, unless `missed:` says otherwise, one beat on return from a stop, never a burst.
        var heartbeat: Int?
        if let beatNode = fields["heartbeat"],
            let seconds = duration(beatNode, what: "heartbeat", in: Self.heartbeatRange, expected: "from 5m to 24h")
        {
            heartbeat = seconds
            schedule = .every(seconds: seconds, origin: Schedule.heartbeatOrigin(agent: agentName, interval: seconds))
        }
        if let startNode = fields["start"], fields["every"] == nil {
            error(
                startNode.mark, code: "conflict", "`start` only applies to `every`",
                expected: fields["heartbeat"] == nil
                    ? "`start:` next to `every:`" : "no `start:`: a heartbeat's phase comes from the agent's name")
        }
        if let atNode = fields["at"], let instant = instant(atNode, zone: zone, what: "at") {
            schedule = .at(instant)
        }
        let delay = fields["randomized_delay"].flatMap { duration($0, what: "randomized_delay", allowZero: true) } ?? 0
        var window: ActiveHours?
        if let hoursNode = fields["active_hours"], let text = string(hoursNode, what: "active_hours") {
            window = ActiveHours.parse(text)
            if window == nil {
                error(
                    hoursNode.mark, code: "value", "active_hours `\(text)` is not a time window",
                    expected: "HH:MM-HH:MM on a 24-hour clock, start and end different, e.g. 08:00-22:00")
            }
        }
        let missed =
            fields["missed"].flatMap(decodeMissed) ?? heartbeat.map { MissedRunPolicy.runOnce(within: $0) } ?? .skip
        guard let schedule, !(fields["active_hours"] != nil && window == nil) else { return nil }
        return Trigger(schedule: schedule, timeZone: zone, randomizedDelay: delay, activeHours: window, missed: missed)
    }

    func decodeMissed(_ node: YAMLNode) -> MissedRunPolicy? {
        let expected = "`skip`, `run_once_within: DURATION` or `catch_up: COUNT`"
        if let text = node.scalar, !node.isNull {
            if text == "skip" { return .skip }
            error(
                node.mark, code: "value", "unknown missed-run policy `\(text)`", expected: expected,
                suggestion: Suggest.closest(to: text, among: ["skip", "run_once_within", "catch_up"]))
            return nil
        }
        guard let fields = mapping(node, allowed: ["run_once_within", "catch_up"], what: "missed"), fields.count == 1
        else {
            if node.mapping != nil {
                error(node.mark, code: "value", "missed needs exactly one policy", expected: expected)
            }
            return nil
        }
        if let within = fields["run_once_within"] {
            return duration(within, what: "run_once_within").map { .runOnce(within: $0) }
        }
        if let count = fields["catch_up"] {
            return integer(count, in: 1...100, what: "catch_up").map { .catchUp(max: $0) }
        }
        return nil
    }

    /// `2026-03-01T09:00:00+01:00` (or `Z`) is an instant; without an offset it is wall time in `zone`.
    func instant(_ node: YAMLNode, zone: TimeZone, what: String) -> Date? {
        guard let text = string(node, what: what) else { return nil }
        let pattern = #"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:\d{2})?$"#
        guard let regex = try? NSRegularExpression(pattern: pattern),
            let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
        else {
            error(
                node.mark, code: "value", "\(what) `\(text)` is not a date and time",
                expected: "ISO 8601 like 2026-03-01T09:00:00+01:00, or 2026-03-01 09:00 in the recipe's zone")
            return nil
        }
        func group(_ index: Int) -> String? {
            guard let range = Range(match.range(at: index), in: text) else { return nil }
            return String(text[range])
        }
        let numbers = (1...6).map { group($0).flatMap { Int($0) } ?? 0 }
        let (year, month, day, hour, minute, second) = (
            numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], numbers[5]
        )
        guard (1...12).contains(month), (1...CivilTime.daysInMonth(year: year, month: month)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else {
            error(
                node.mark, code: "value", "\(what) `\(text)` is not a real date and time",
                expected: "a valid calendar date")
            return nil
        }
        let wall = CivilTime.wallSeconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        if let offset = group(7) {
            if offset == "Z" { return Date(timeIntervalSince1970: TimeInterval(wall)) }
            let sign = offset.hasPrefix("-") ? -1 : 1
            let parts = offset.dropFirst().split(separator: ":").compactMap { Int($0) }
            return Date(timeIntervalSince1970: TimeInterval(wall - sign * (parts[0] * 3600 + parts[1] * 60)))
        }
        switch CivilTime.resolve(wall: wall, in: zone) {
        case .unique(let date), .repeated(let date, _), .gap(let date): return date
        }
    }

    static let limitKeys = [
        "post_interval", "comment_interval", "comments_per_hour", "comments_per_day", "reads_per_minute",
        "writes_per_minute", "i_know_the_server_limits",
    ]

    func decodeLimits(_ node: YAMLNode) -> LimitOverrides {
        var overrides = LimitOverrides()
        guard let fields = mapping(node, allowed: Self.limitKeys, what: "limits") else { return overrides }
        if let flag = fields["i_know_the_server_limits"] {
            overrides.loosen = boolean(flag, what: "i_know_the_server_limits") ?? false
        }
        let server = LimitProfile.standard
        func interval(_ key: String, _ serverValue: Int) -> Located<Int>? {
            guard let node = fields[key], let value = duration(node, what: key) else { return nil }
            if value < serverValue && !overrides.loosen {
                error(
                    node.mark, code: "limit",
                    "\(key) \(DurationText.format(value)) is looser than the server limit \(DurationText.format(serverValue))",
                    expected: "at least \(DurationText.format(serverValue)), or `i_know_the_server_limits: true`")
            }
            return Located(value, at: node.mark)
        }
        func count(_ key: String, _ serverValue: Int) -> Located<Int>? {
            guard let node = fields[key], let value = integer(node, in: 1...10_000, what: key) else { return nil }
            if value > serverValue && !overrides.loosen {
                error(
                    node.mark, code: "limit", "\(key) \(value) is looser than the server limit \(serverValue)",
                    expected: "at most \(serverValue), or `i_know_the_server_limits: true`")
            }
            return Located(value, at: node.mark)
        }
        overrides.postInterval = interval("post_interval", server.postInterval)
        overrides.commentInterval = interval("comment_interval", server.commentInterval)
        overrides.commentsPerHour = count("comments_per_hour", server.commentsPerHour)
        overrides.commentsPerDay = count("comments_per_day", server.commentsPerDay)
        overrides.readsPerMinute = count("reads_per_minute", server.readsPerMinute)
        overrides.writesPerMinute = count("writes_per_minute", server.writesPerMinute)
        return overrides
    }
}
