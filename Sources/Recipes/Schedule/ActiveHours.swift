import Foundation

/// A daily window of wall-clock time, `from` inclusive to `to` exclusive; it may wrap past midnight (22:00–06:00).
public struct ActiveHours: Sendable, Equatable, CustomStringConvertible {
    /// Minutes after local midnight.
    public var from: Int
    /// Minutes after local midnight; never equal to `from`.
    public var to: Int

    public init(from: Int, to: Int) {
        self.from = from
        self.to = to
    }

    /// Whether a minute of the day (0…1439) is inside the window.
    public func contains(minuteOfDay minute: Int) -> Bool {
        from < to ? (minute >= from && minute < to) : (minute >= from || minute < to)
    }

    /// Minutes per day inside the window.
    public var minutesPerDay: Int { from < to ? to - from : 1_440 - from + to }

    public var description: String { "\(Self.clock(from))-\(Self.clock(to))" }

    static func clock(_ minutes: Int) -> String {
        let hours = minutes / 60
        let rest = minutes % 60
        return (hours < 10 ? "0" : "") + "\(hours):" + (rest < 10 ? "0" : "") + "\(rest)"
    }

    /// Parses `HH:MM-HH:MM` (24-hour clock; `24:00` allowed as an end).
    public static func parse(_ text: String) -> ActiveHours? {
        let ends = text.split(separator: "-").map { $0.trimmingCharacters(in: .whitespaces) }
        guard ends.count == 2, let from = minutes(ends[0], allow24: false), let to = minutes(ends[1], allow24: true),
            from != to % 1_440
        else { return nil }
        return ActiveHours(from: from, to: to == 1_440 ? 0 : to)
    }

    static func minutes(_ text: String, allow24: Bool) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[1].count == 2, let hours = Int(parts[0]), let minutes = Int(parts[1]),
            (0...59).contains(minutes)
        else { return nil }
        if hours == 24 && minutes == 0 && allow24 { return 1_440 }
        guard (0...23).contains(hours) else { return nil }
        return hours * 60 + minutes
    }
}
