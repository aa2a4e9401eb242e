import CivilDate
import Foundation

/// Proleptic-Gregorian date arithmetic on "wall seconds" (local seconds since 1970-01-01T00:00 local),
/// and the conversion between wall time and instants in a zone, with DST gaps and repeats made explicit.
enum CivilTime {
    /// How a wall-clock time maps onto instants in a zone.
    enum Resolution: Equatable {
        /// Exactly one instant.
        case unique(Date)
        /// The wall time happens twice (clocks set back); both instants, earliest first.
        case repeated(first: Date, second: Date)
        /// The wall time never happens (clocks set forward); the first instant after the gap.
        case gap(firstAfter: Date)
    }

    static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// 0 = Sunday … 6 = Saturday.
    static func weekday(days: Int) -> Int { ((days % 7) + 11) % 7 }

    static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// The wall seconds of `instant` in `zone` (whole seconds, rounded down).
    static func wallSeconds(of instant: Date, in zone: TimeZone) -> Int {
        let seconds = Int(instant.timeIntervalSince1970.rounded(.down))
        return seconds + zone.secondsFromGMT(for: instant)
    }

    static func wallSeconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int = 0) -> Int {
        CivilDate.days(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
    }

    /// The instants at which `wall` is shown on clocks in `zone`.
    static func resolve(wall: Int, in zone: TimeZone) -> Resolution {
        let before = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(wall - 86_400)))
        let after = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(wall + 86_400)))
        let here = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(wall)))
        var valid: [Int] = []
        for offset in Set([before, after, here]) {
            let instant = wall - offset
            if zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))) == offset {
                valid.append(instant)
            }
        }
        valid.sort()
        if valid.count == 1 { return .unique(Date(timeIntervalSince1970: TimeInterval(valid[0]))) }
        if valid.count >= 2 {
            return .repeated(
                first: Date(timeIntervalSince1970: TimeInterval(valid[0])),
                second: Date(timeIntervalSince1970: TimeInterval(valid[valid.count - 1])))
        }
        // A gap: before the transition the offset is smaller. Binary-search the transition instant.
        var low = wall - max(before, after)
        var high = wall - min(before, after)
        let lowOffset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(low)))
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(middle))) == lowOffset {
                low = middle
            } else {
                high = middle
            }
        }
        return .gap(firstAfter: Date(timeIntervalSince1970: TimeInterval(high)))
    }
}
