import ArgumentParser
import Foundation

/// `--now`, the instant a command stands at (hidden; tests and scripts that drive a simulated clock), read in one
/// place. An instant that is not ISO-8601, or lies outside 1970 … 9999, is a usage error: never the wall clock in
/// disguise (a typo used to read today's date) nor a failure further in (`--now 0001-01-01` ended as "state store
/// failed", exit 75; issue 34).
enum NowOption {
    static let earliest = Date(timeIntervalSince1970: 0)
    /// 9999-12-31T23:59:59Z.
    static let latest = Date(timeIntervalSince1970: 253_402_300_799)
    static let problem = "--now takes an ISO-8601 instant from 1970 to 9999, such as 2026-03-01T09:00:00Z"

    /// The instant `text` names: ISO-8601, with or without fractional seconds (scripts that start several runners
    /// on one scaled clock give the sandbox's time to the millisecond), from 1970 to 9999; nil otherwise.
    static func instant(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        var date = formatter.date(from: text)
        if date == nil {
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            date = formatter.date(from: text)
        }
        guard let date, date >= earliest, date <= latest else { return nil }
        return date
    }

    /// `--now`'s instant, or the wall clock without one: the one place a command reads the clock.
    static func resolve(_ text: String?) throws -> Date {
        guard let text else { return Date() }
        guard let date = instant(text) else { throw ValidationError(problem) }
        return date
    }
}
