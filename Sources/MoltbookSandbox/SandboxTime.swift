import Foundation
import MoltbookAPI

/// Timestamp formatting in Moltbook's style: `2026-01-30T06:46:15.074832+00:00`.
public enum SandboxTime {
    /// ISO-8601 with microseconds and a `+00:00` offset.
    public static func iso(_ date: Date) -> String {
        MoltbookDate.format(date)
    }

    /// Parses ISO-8601 (with or without fractional seconds, `Z` or `±HH:MM`) leniently.
    public static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " ", with: "T")
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = withFraction.date(from: trimmed) { return date }
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        return plain.date(from: trimmed)
    }

    /// Whole seconds from `now` until `date`, rounded up, never below `minimum`.
    static func secondsUntil(_ date: Date, from now: Date, minimum: Int = 1) -> Int {
        max(minimum, Int((date.timeIntervalSince(now)).rounded(.up)))
    }

    /// Unix seconds, rounded up (used for `X-RateLimit-Reset`).
    static func unixSeconds(_ date: Date) -> Int {
        Int(date.timeIntervalSince1970.rounded(.up))
    }
}

/// Human wording of intervals in limit messages ("30 minutes", "2 hours", "20 seconds").
enum SandboxWording {
    static func interval(_ seconds: Int) -> String {
        if seconds % 3600 == 0 { return plural(seconds / 3600, "hour") }
        if seconds % 60 == 0 { return plural(seconds / 60, "minute") }
        return plural(seconds, "second")
    }

    /// "every 30 minutes", but "every hour" rather than "every 1 hour".
    static func every(_ seconds: Int) -> String {
        let text = interval(seconds)
        return text.hasPrefix("1 ") ? String(text.dropFirst(2)) : text
    }

    /// A suspension's length as the minimal mock words it: "1 week", "3 days", "10 hours", "30 minutes".
    static func duration(_ seconds: Int) -> String {
        if seconds >= 604_800, seconds % 604_800 == 0 { return plural(seconds / 604_800, "week") }
        if seconds >= 86_400, seconds % 86_400 == 0 { return plural(seconds / 86_400, "day") }
        if seconds >= 3600 { return plural(seconds / 3600, "hour") }
        return plural(max(1, (seconds + 59) / 60), "minute")
    }

    static func plural(_ count: Int, _ unit: String) -> String {
        "\(count) \(unit)\(count == 1 ? "" : "s")"
    }
}
