import Foundation

/// Timestamp formatting in Moltbook's style: `2026-01-30T06:46:15.074832+00:00`.
public enum SandboxTime {
    /// ISO-8601 with microseconds and a `+00:00` offset.
    public static func iso(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        let fraction = micros - seconds * 1_000_000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay % 3600 / 60, 2) + ":" + pad(secondOfDay % 60, 2)
            + "." + pad(fraction, 6) + "+00:00"
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

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// Howard Hinnant's days-from-civil inverse: proleptic Gregorian date of a day number.
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
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

    static func plural(_ count: Int, _ unit: String) -> String {
        "\(count) \(unit)\(count == 1 ? "" : "s")"
    }
}
