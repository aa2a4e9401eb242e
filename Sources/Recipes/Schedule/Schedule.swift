import Foundation

/// When something runs, before time zone resolution of jitter and active hours: cron, a fixed interval, or once.
public enum Schedule: Sendable, Equatable {
    /// A cron expression evaluated on the clocks of the trigger's zone.
    case cron(CronExpression)
    /// Every `seconds` of elapsed time, counted from `origin`.
    case every(seconds: Int, origin: Date)
    /// Once, at an instant.
    case at(Date)

    /// The first occurrence strictly after `after`; nil if there is none (or none within the search bound).
    public func next(after: Date, in zone: TimeZone) -> Date? {
        switch self {
        case .cron(let expression):
            return expression.next(after: after, in: zone)
        case .every(let seconds, let origin):
            let elapsed = after.timeIntervalSince(origin)
            let count = (elapsed / Double(seconds)).rounded(.down) + 1
            return origin.addingTimeInterval(max(0, count) * Double(seconds))
        case .at(let instant):
            return instant > after ? instant : nil
        }
    }

    /// The origin of `heartbeat: INTERVAL` for `agent`: 2000-01-01T00:00Z plus a phase of
    /// 0…INTERVAL−1 seconds from a hash of the agent's name. The same agent always beats at the
    /// same moments (every recipe of it, on every machine), and many agents with one interval
    /// spread their beats over it instead of all reading `/home` at :00 and :30. Intervals that
    /// divide each other keep one agent's beats together: its hourly beats fall on every other
    /// half-hourly one.
    public static func heartbeatOrigin(agent: String, interval: Int) -> Date {
        let phase = StableHash.hash("heartbeat:" + agent) % UInt64(max(1, interval))
        return Date(timeIntervalSince1970: 946_684_800 + TimeInterval(phase))
    }

    /// The default origin of `every:`: 2000-01-01T00:00 on the clocks of `zone`.
    public static func defaultOrigin(in zone: TimeZone) -> Date {
        let wall = CivilTime.wallSeconds(year: 2000, month: 1, day: 1, hour: 0, minute: 0)
        switch CivilTime.resolve(wall: wall, in: zone) {
        case .unique(let instant), .repeated(let instant, _), .gap(let instant): return instant
        }
    }
}
