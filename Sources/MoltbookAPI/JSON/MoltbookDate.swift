import CivilDate
import Foundation

/// Lenient timestamp parsing for the formats Moltbook has served.
///
/// - ISO-8601 with fractional seconds and an offset: `2026-01-30T06:46:15.074832+00:00`
/// - ISO-8601 without fraction, or with `Z`
/// - Postgres style with a space and a short offset: `2026-06-22 21:42:16+00`
/// - HTTP-date (`Retry-After`, `Date`): `Sun, 22 Nov 2026 04:15:39 GMT`
public enum MoltbookDate {
    public static func parse(_ text: String) -> Date? {
        var text = text
        if text.first?.isWhitespace == true || text.last?.isWhitespace == true {
            text = text.trimmingCharacters(in: .whitespaces)
        }
        if let date = parseISO(text) { return date }
        return parseHTTPDate(text)
    }

    /// Formats `date` the way Moltbook does (microseconds, `+00:00`), by calendar arithmetic
    /// (no formatter: the client and the sandbox format and parse a timestamp per item they list).
    public static func format(_ date: Date) -> String {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
        var out = [UInt8]()
        out.reserveCapacity(32)
        appendCivil(seconds: Int(seconds), separator: UInt8(ascii: "T"), into: &out)
        out.append(UInt8(ascii: "."))
        appendDigits(Int(micros - seconds * 1_000_000), width: 6, into: &out)
        out += "+00:00".utf8
        return String(decoding: out, as: UTF8.self)
    }

    /// `2026-03-02 09:30:00 +01:00`: `date` at `offset` seconds from UTC, to the second, the text
    /// `DateFormatter` gives for `yyyy-MM-dd HH:mm:ss xxx` (ICU rounds the instant to the
    /// millisecond, then takes the second it falls in).
    public static func formatLocal(_ date: Date, offset: Int) -> String {
        let millis = Int((date.timeIntervalSince1970 * 1_000).rounded())
        let seconds = (millis >= 0 ? millis / 1_000 : (millis - 999) / 1_000) + offset
        var out = [UInt8]()
        out.reserveCapacity(26)
        appendCivil(seconds: seconds, separator: UInt8(ascii: " "), into: &out)
        out += offset < 0 ? " -".utf8 : " +".utf8
        appendDigits(abs(offset) / 3_600, width: 2, into: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(abs(offset) % 3_600 / 60, width: 2, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `yyyy-MM-dd` `separator` `HH:mm:ss` of `seconds` since 1970 (UTC, or already shifted).
    static func appendCivil(seconds: Int, separator: UInt8, into out: inout [UInt8]) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.date(ofDay: days)
        appendDigits(year, width: 4, into: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(month, width: 2, into: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(day, width: 2, into: &out)
        out.append(separator)
        appendDigits(secondOfDay / 3600, width: 2, into: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 3600 / 60, width: 2, into: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 60, width: 2, into: &out)
    }

    static func appendDigits(_ value: Int, width: Int, into out: inout [UInt8]) {
        let text = String(value).utf8
        for _ in 0..<max(0, width - text.count) { out.append(UInt8(ascii: "0")) }
        out += text
    }

    /// `yyyy-MM-dd[T ]HH:mm:ss[.fraction][Z|±HH[:MM]|±HHMM]`, on the UTF-8 bytes.
    static func parseISO(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes in parseISO(bytes) }
    }

    static func parseISO(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        func isByte(_ index: Int, _ character: Unicode.Scalar) -> Bool {
            index < bytes.count && bytes[index] == UInt8(ascii: character)
        }
        guard bytes.count >= 19, isByte(4, "-"), isByte(7, "-"), isByte(10, "T") || isByte(10, " ") || isByte(10, "t"),
            isByte(13, ":"), isByte(16, ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if isByte(index, ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, let digit = number(index..<index + 1) {
                fraction += Double(digit) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        if index < bytes.count {
            if isByte(index, "Z") || isByte(index, "z") {
                index += 1
            } else if isByte(index, "+") || isByte(index, "-") {
                let negative = isByte(index, "-")
                guard let hours = number(index + 1..<index + 3) else { return nil }
                index += 3
                var minutes = 0
                if isByte(index, ":") {
                    guard let value = number(index + 1..<index + 3) else { return nil }
                    minutes = value
                    index += 3
                } else if index + 2 <= bytes.count, let value = number(index..<index + 2) {
                    minutes = value
                    index += 2
                }
                offset = (hours * 3600 + minutes * 60) * (negative ? -1 : 1)
            } else {
                return nil
            }
        }
        guard index == bytes.count else { return nil }
        let dayNumber = CivilDate.days(year: year, month: month, day: day)
        let seconds = Double(dayNumber) * 86_400 + Double(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: seconds).addingTimeInterval(fraction - Double(offset))
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
