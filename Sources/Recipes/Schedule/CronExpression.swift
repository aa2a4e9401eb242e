/// A parsed five-field cron expression: each field a bit set, as in robfig/cron and Vixie cron.
///
/// Fields: minute (0–59), hour (0–23), day of month (1–31), month (1–12 or JAN–DEC),
/// day of week (0–7 or SUN–SAT, 7 = Sunday). Each is `*`, a value, a range `a-b`, a step `*/n` or `a-b/n`,
/// or a comma list of those. When both day fields are restricted (neither starts with `*`), a day matches
/// if either matches (Vixie cron's OR); otherwise both must match.
public struct CronExpression: Sendable, Equatable, CustomStringConvertible {
    public var minutes: UInt64
    public var hours: UInt64
    public var daysOfMonth: UInt64
    public var months: UInt64
    public var daysOfWeek: UInt64
    /// True when the day-of-month field starts with `*`.
    public var dayOfMonthIsWildcard: Bool
    /// True when the day-of-week field starts with `*`.
    public var dayOfWeekIsWildcard: Bool
    /// The text it was parsed from.
    public var source: String

    public var description: String { source }

    /// Whether the civil day (`weekday` 0 = Sunday) passes both day fields.
    func dayMatches(day: Int, month: Int, weekday: Int) -> Bool {
        let dom = daysOfMonth & (1 << UInt64(day)) != 0
        let dow = daysOfWeek & (1 << UInt64(weekday)) != 0
        if dayOfMonthIsWildcard || dayOfWeekIsWildcard { return dom && dow }
        return dom || dow
    }

    static let descriptors: [String: String] = [
        "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
        "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
    ]
}
