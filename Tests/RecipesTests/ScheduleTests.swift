import Foundation
import Testing

@testable import Recipes

/// An ISO-8601 instant for test tables.
func instant(_ text: String) -> Date {
    guard let date = try? Date(text, strategy: .iso8601) else { fatalError("bad test instant \(text)") }
    return date
}

func zone(_ name: String) -> TimeZone {
    guard let zone = TimeZone(identifier: name) else { fatalError("unknown zone \(name)") }
    return zone
}

/// Cron parsing and `next(after:in:)` at fixed instants.
struct CronTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let cron: String
        let zone: String
        let after: String
        let expected: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "every minute", cron: "* * * * *", zone: "UTC", after: "2026-01-01T10:07:30Z",
            expected: ["2026-01-01T10:08:00Z", "2026-01-01T10:09:00Z"]),
        Case(
            name: "weekday mornings by name", cron: "0 9 * JAN-MAR MON-FRI", zone: "UTC", after: "2026-01-02T12:00:00Z",
            expected: ["2026-01-05T09:00:00Z", "2026-01-06T09:00:00Z"]),
        Case(
            name: "steps and lists", cron: "0,30 */6 * * *", zone: "UTC", after: "2026-01-01T06:10:00Z",
            expected: ["2026-01-01T06:30:00Z", "2026-01-01T12:00:00Z"]),
        Case(
            name: "day 7 is Sunday", cron: "0 0 * * 7", zone: "UTC", after: "2026-01-01T00:00:00Z",
            expected: ["2026-01-04T00:00:00Z"]),
        Case(
            name: "@daily in a zone", cron: "@daily", zone: "Europe/Berlin", after: "2026-01-01T12:00:00Z",
            expected: ["2026-01-01T23:00:00Z"]),
        Case(
            name: "@hourly", cron: "@hourly", zone: "UTC", after: "2026-01-01T10:00:00Z",
            expected: ["2026-01-01T11:00:00Z"]),
        Case(
            name: "@weekly", cron: "@weekly", zone: "UTC", after: "2026-01-01T00:00:00Z",
            expected: ["2026-01-04T00:00:00Z"]),
        Case(
            name: "@monthly", cron: "@monthly", zone: "UTC", after: "2026-01-15T00:00:00Z",
            expected: ["2026-02-01T00:00:00Z"]),
        Case(
            name: "@annually", cron: "@annually", zone: "UTC", after: "2026-01-15T00:00:00Z",
            expected: ["2027-01-01T00:00:00Z"]),
        // DST gap, Berlin 2026-03-29 02:00 CET → 03:00 CEST: 02:30 does not exist, runs at 03:00 CEST.
        Case(
            name: "Berlin gap runs after the gap", cron: "30 2 * * *", zone: "Europe/Berlin",
            after: "2026-03-28T12:00:00Z",
            expected: ["2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"]),
        Case(
            name: "Berlin gap collapses */15 into one run", cron: "*/15 * * * *", zone: "Europe/Berlin",
            after: "2026-03-29T00:50:00Z", expected: ["2026-03-29T01:00:00Z", "2026-03-29T01:15:00Z"]),
        // DST repeat, Berlin 2026-10-25 03:00 CEST → 02:00 CET: 02:30 happens twice, runs on the first.
        Case(
            name: "Berlin repeat runs once, first", cron: "30 2 * * *", zone: "Europe/Berlin",
            after: "2026-10-24T12:00:00Z",
            expected: ["2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"]),
        Case(
            name: "Berlin repeat skips the second pass", cron: "*/30 * * * *", zone: "Europe/Berlin",
            after: "2026-10-25T00:45:00Z", expected: ["2026-10-25T02:00:00Z"]),
        Case(
            name: "New York gap", cron: "30 2 * * *", zone: "America/New_York", after: "2026-03-07T12:00:00Z",
            expected: ["2026-03-08T07:00:00Z", "2026-03-09T06:30:00Z"]),
        Case(
            name: "New York repeat", cron: "30 1 * * *", zone: "America/New_York", after: "2026-10-31T12:00:00Z",
            expected: ["2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"]),
        Case(
            name: "leap day", cron: "0 12 29 2 *", zone: "UTC", after: "2026-01-01T00:00:00Z",
            expected: ["2028-02-29T12:00:00Z", "2032-02-29T12:00:00Z"]),
        Case(
            name: "leap day across 2100", cron: "0 12 29 2 *", zone: "UTC", after: "2096-03-01T00:00:00Z",
            expected: ["2104-02-29T12:00:00Z"]),
        Case(
            name: "dom and dow both restricted: either", cron: "0 0 13 * 5", zone: "UTC", after: "2026-02-01T00:00:00Z",
            expected: ["2026-02-06T00:00:00Z", "2026-02-13T00:00:00Z", "2026-02-20T00:00:00Z"]),
        Case(
            name: "dom starting with *: both", cron: "0 0 */2 * 5", zone: "UTC", after: "2026-02-01T00:00:00Z",
            expected: ["2026-02-13T00:00:00Z", "2026-02-27T00:00:00Z"]),
        Case(
            name: "dow wildcard: dom only", cron: "0 0 13 * *", zone: "UTC", after: "2026-02-01T00:00:00Z",
            expected: ["2026-02-13T00:00:00Z", "2026-03-13T00:00:00Z"]),
        Case(
            name: "Feb 30 never matches", cron: "0 0 30 2 *", zone: "UTC", after: "2026-01-01T00:00:00Z", expected: []),
        Case(
            name: "Apr 31 never matches", cron: "0 0 31 4 *", zone: "Europe/Berlin", after: "2026-01-01T00:00:00Z",
            expected: []),
    ]

    /// Each expression yields the listed instants in order, then (for never-matching ones) nil.
    @Test(arguments: cases) func next(_ test: Case) throws {
        let expression = try CronExpression.parse(test.cron)
        var cursor = instant(test.after)
        for expected in test.expected {
            let next = try #require(expression.next(after: cursor, in: zone(test.zone)))
            #expect(next == instant(expected))
            cursor = next
        }
        if test.expected.isEmpty { #expect(expression.next(after: cursor, in: zone(test.zone)) == nil) }
    }

    struct BadCase: Sendable, CustomTestStringConvertible {
        let text: String
        let offset: Int
        let fragment: String
        var testDescription: String { text }
    }

    static let bad: [BadCase] = [
        BadCase(text: "* * * *", offset: 0, fragment: "has 4 fields"),
        BadCase(text: "* * * * * *", offset: 10, fragment: "has 6 fields"),
        BadCase(text: "60 * * * *", offset: 0, fragment: "60 is out of range for the minute field"),
        BadCase(text: "0 24 * * *", offset: 2, fragment: "24 is out of range for the hour field"),
        BadCase(text: "0 0 0 * *", offset: 4, fragment: "0 is out of range for the day of month field"),
        BadCase(text: "0 0 * JNA *", offset: 6, fragment: "`JNA` is not a valid month"),
        BadCase(text: "0 0 * * MON-FRU", offset: 12, fragment: "`FRU` is not a valid day of week"),
        BadCase(text: "0 5-2 * * *", offset: 2, fragment: "runs backwards"),
        BadCase(text: "*/0 * * * *", offset: 2, fragment: "bad step"),
        BadCase(text: "5/10 * * * *", offset: 0, fragment: "step `/10` after a single value"),
        BadCase(text: "1,,2 * * * *", offset: 2, fragment: "empty item"),
        BadCase(text: "@fortnightly", offset: 0, fragment: "unknown cron shortcut"),
    ]

    /// Malformed expressions are refused at the offending character.
    @Test(arguments: bad) func parseErrors(_ test: BadCase) {
        do {
            _ = try CronExpression.parse(test.text)
            Issue.record("\(test.text) parsed")
        } catch {
            #expect(error.offset == test.offset)
            #expect(error.message.contains(test.fragment), "\(error.message)")
        }
    }

    /// A misspelt month name gets a suggestion.
    @Test func suggestion() {
        #expect(throws: CronError.self) { try CronExpression.parse("0 0 * JNA *") }
        do { _ = try CronExpression.parse("@dayly") } catch { #expect(error.suggestion == "@daily") }
    }
}

/// Intervals, one-shots, jitter, active hours and missed runs.
struct TriggerTests {
    /// `every:` counts from its origin, by default local midnight 2000-01-01 in the zone.
    @Test func every() {
        let utc = zone("UTC")
        let schedule = Schedule.every(seconds: 900, origin: Schedule.defaultOrigin(in: utc))
        #expect(schedule.next(after: instant("2026-01-01T10:07:00Z"), in: utc) == instant("2026-01-01T10:15:00Z"))
        #expect(schedule.next(after: instant("2026-01-01T10:15:00Z"), in: utc) == instant("2026-01-01T10:30:00Z"))
        let berlin = zone("Europe/Berlin")
        #expect(Schedule.defaultOrigin(in: berlin) == instant("1999-12-31T23:00:00Z"))
        let daily = Schedule.every(seconds: 86_400, origin: Schedule.defaultOrigin(in: berlin))
        #expect(daily.next(after: instant("2026-01-05T12:00:00Z"), in: berlin) == instant("2026-01-05T23:00:00Z"))
    }

    /// `at:` fires once, then never.
    @Test func at() {
        let once = Schedule.at(instant("2026-05-01T09:00:00Z"))
        #expect(once.next(after: instant("2026-04-01T00:00:00Z"), in: zone("UTC")) == instant("2026-05-01T09:00:00Z"))
        #expect(once.next(after: instant("2026-05-01T09:00:00Z"), in: zone("UTC")) == nil)
    }

    /// Jitter is a pure function of seed and occurrence, within 0…delay.
    @Test func jitter() throws {
        let trigger = Trigger(
            schedule: .cron(try CronExpression.parse("@hourly")), timeZone: zone("UTC"), randomizedDelay: 300)
        let nominal = instant("2026-01-01T10:00:00Z")
        let first = trigger.fireDate(for: nominal, seed: "recipe/job")
        #expect(first == trigger.fireDate(for: nominal, seed: "recipe/job"))
        var delays = Set<TimeInterval>()
        for hour in 0..<24 {
            let occurrence = nominal.addingTimeInterval(TimeInterval(hour * 3600))
            let delay = trigger.fireDate(for: occurrence, seed: "recipe/job").timeIntervalSince(occurrence)
            #expect(delay >= 0 && delay <= 300)
            delays.insert(delay)
        }
        #expect(delays.count > 10)
        #expect(StableHash.hash("moltipass") == StableHash.hash("moltipass"))
        #expect(StableHash.hash("a") != StableHash.hash("b"))
    }

    /// Occurrences outside the active hours are skipped, including windows that wrap midnight.
    @Test func activeHours() throws {
        let hourly = Schedule.every(seconds: 3600, origin: Schedule.defaultOrigin(in: zone("UTC")))
        let day = Trigger(schedule: hourly, timeZone: zone("UTC"), activeHours: ActiveHours.parse("09:00-17:00"))
        #expect(day.next(after: instant("2026-01-01T16:30:00Z")) == instant("2026-01-02T09:00:00Z"))
        #expect(day.next(after: instant("2026-01-01T10:30:00Z")) == instant("2026-01-01T11:00:00Z"))
        let night = Trigger(schedule: hourly, timeZone: zone("UTC"), activeHours: ActiveHours.parse("22:00-02:00"))
        #expect(night.next(after: instant("2026-01-01T01:30:00Z")) == instant("2026-01-01T22:00:00Z"))
        let never = Trigger(
            schedule: .cron(try CronExpression.parse("0 3 * * *")), timeZone: zone("UTC"),
            activeHours: ActiveHours.parse("09:00-17:00"))
        #expect(never.next(after: instant("2026-01-01T00:00:00Z")) == nil)
        #expect(ActiveHours.parse("09:00-09:00") == nil)
        #expect(ActiveHours.parse("9-17") == nil)
        #expect(ActiveHours.parse("08:00-24:00")?.minutesPerDay == 960)
    }

    /// Missed occurrences follow the policy; on-time ones always run.
    @Test func missedRuns() throws {
        let hourly = Schedule.cron(try CronExpression.parse("@hourly"))
        let last = instant("2026-01-01T00:00:00Z")
        let now = instant("2026-01-01T05:00:30Z")
        func due(_ policy: MissedRunPolicy) -> [Date] {
            Trigger(schedule: hourly, timeZone: zone("UTC"), missed: policy).due(after: last, now: now)
        }
        #expect(due(.skip) == [instant("2026-01-01T05:00:00Z")])
        #expect(due(.catchUp(max: 2)) == ["03", "04", "05"].map { instant("2026-01-01T\($0):00:00Z") })
        let late = instant("2026-01-01T04:30:00Z")
        let runOnce = Trigger(schedule: hourly, timeZone: zone("UTC"), missed: .runOnce(within: 3600))
        #expect(runOnce.due(after: last, now: late) == [instant("2026-01-01T04:00:00Z")])
        let tooLate = Trigger(schedule: hourly, timeZone: zone("UTC"), missed: .runOnce(within: 600))
        #expect(tooLate.due(after: last, now: late) == [])
    }

    /// Durations: units largest first, each once.
    @Test(arguments: [("90s", 90), ("15m", 900), ("2h", 7200), ("1d", 86_400), ("1h30m", 5400), ("1d2h3m4s", 93_784)])
    func durations(_ text: String, _ seconds: Int) throws {
        #expect(try DurationText.seconds(text) == seconds)
        #expect(try DurationText.seconds(DurationText.format(seconds)) == seconds)
        #expect(DurationText.format(5400) == "1h30m")
    }

    /// Bad durations name the offending character.
    @Test(arguments: [("", 0), ("15", 2), ("15x", 2), ("m", 0), ("30m1h", 4), ("0s", 0), ("1h 30m", 2)])
    func badDurations(_ text: String, _ offset: Int) {
        #expect(throws: DurationText.Failure.self) { try DurationText.seconds(text) }
        do { _ = try DurationText.seconds(text) } catch { #expect(error.offset == offset, "\(error.message)") }
    }
}
