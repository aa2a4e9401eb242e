import Foundation

/// Lenient timestamp parsing for the formats Moltbook has served.
///
/// - ISO-8601 with fractional seconds and an offset: `2026-01-30T06:46:15.074832+00:00`
/// - ISO-8601 without fraction, or with `Z`
/// - Postgres style with a space and a short offset: `2026-06-22 21:42:16+00`
/// - HTTP-date (`Retry-After`, `Date`): `Sun, 22 Nov 2026 04:15:39 GMT`
public enum MoltbookDate {
    public static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let date = parseISO(trimmed) { return date }
        return parseHTTPDate(trimmed)
    }

    /// Formats `date` the way Moltbook does (microseconds, `+00:00`).
    public static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        var whole = floor(seconds)
        var micros = Int(((seconds - whole) * 1_000_000).rounded())
        if micros >= 1_000_000 {
            whole += 1
            micros -= 1_000_000
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: whole)) + String(format: ".%06d+00:00", micros)
    }

    static func parseISO(_ text: String) -> Date? {
        // yyyy-MM-dd[T ]HH:mm:ss[.fraction][Z|±HH[:MM]|±HHMM]
        let scalars = Array(text.unicodeScalars)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= scalars.count else { return nil }
            var value = 0
            for index in range {
                guard
                    let digit = scalars[index].properties.numericType != nil
                        ? Int(String(scalars[index])) : nil
                else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard scalars.count >= 19, scalars[4] == "-", scalars[7] == "-",
            scalars[10] == "T" || scalars[10] == " "
                || scalars[10] == "t", scalars[13] == ":", scalars[16] == ":",
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < scalars.count, scalars[index] == "." {
            index += 1
            var scale = 0.1
            let start = index
            while index < scalars.count, let digit = Int(String(scalars[index])), scalars[index].isASCII {
                fraction += Double(digit) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        if index < scalars.count {
            let sign = scalars[index]
            if sign == "Z" || sign == "z" {
                index += 1
            } else if sign == "+" || sign == "-" {
                guard let hours = number(index + 1..<index + 3) else { return nil }
                index += 3
                var minutes = 0
                if index < scalars.count, scalars[index] == ":" {
                    guard let value = number(index + 1..<index + 3) else { return nil }
                    minutes = value
                    index += 3
                } else if index + 2 <= scalars.count, let value = number(index..<index + 2) {
                    minutes = value
                    index += 2
                }
                offset = (hours * 3600 + minutes * 60) * (sign == "-" ? -1 : 1)
            } else {
                return nil
            }
        }
        guard index == scalars.count else { return nil }
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(identifier: "UTC")
        components.year = year
        components.month = month
        components.day = day
        components.hour = hour
        components.minute = minute
        components.second = second
        guard let base = components.date else { return nil }
        return base.addingTimeInterval(fraction - Double(offset))
    }

    static func parseHTTPDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
