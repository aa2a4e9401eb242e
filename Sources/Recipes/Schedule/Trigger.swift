import Foundation

/// A schedule in a zone with its jitter, active hours and missed-run policy: everything needed to say when a job runs.
public struct Trigger: Sendable, Equatable {
    public var schedule: Schedule
    public var timeZone: TimeZone
    /// Upper bound of the per-occurrence delay, in seconds (0 = none).
    public var randomizedDelay: Int
    public var activeHours: ActiveHours?
    public var missed: MissedRunPolicy

    public init(
        schedule: Schedule, timeZone: TimeZone, randomizedDelay: Int = 0, activeHours: ActiveHours? = nil,
        missed: MissedRunPolicy = .skip
    ) {
        self.schedule = schedule
        self.timeZone = timeZone
        self.randomizedDelay = randomizedDelay
        self.activeHours = activeHours
        self.missed = missed
    }

    /// Occurrences examined per `next` call before giving up (occurrences outside active hours are skipped);
    /// the search also stops ten years ahead.
    public static let searchLimit = 100_000

    /// The next nominal occurrence strictly after `after` inside the active hours; nil if none (bounded search).
    public func next(after: Date) -> Date? {
        var cursor = after
        let giveUp = after.addingTimeInterval(10 * 366 * 86_400)
        for _ in 0..<Self.searchLimit {
            guard let candidate = schedule.next(after: cursor, in: timeZone), candidate <= giveUp else { return nil }
            guard let window = activeHours else { return candidate }
            let wall = CivilTime.wallSeconds(of: candidate, in: timeZone)
            let minute = (wall - CivilTime.floorDiv(wall, 86_400) * 86_400) / 60
            if window.contains(minuteOfDay: minute) { return candidate }
            cursor = candidate
        }
        return nil
    }

    /// When the occurrence `nominal` actually fires: delayed by a deterministic 0…`randomizedDelay` seconds
    /// derived from `seed` and the occurrence itself.
    public func fireDate(for nominal: Date, seed: String) -> Date {
        guard randomizedDelay > 0 else { return nominal }
        let key = seed + "@" + String(Int64(nominal.timeIntervalSince1970.rounded(.down)))
        let delay = StableHash.hash(key) % UInt64(randomizedDelay + 1)
        return nominal.addingTimeInterval(TimeInterval(delay))
    }

    /// The occurrences after `lastRun` up to `now` that should run now: those within `tolerance` seconds of `now`
    /// always, older (missed) ones as the missed-run policy says. At most `scanLimit` occurrences are examined.
    public func due(after lastRun: Date, now: Date, tolerance: Int = 60, scanLimit: Int = 10_000) -> [Date] {
        var occurrences: [Date] = []
        var cursor = lastRun
        for _ in 0..<scanLimit {
            guard let next = next(after: cursor), next <= now else { break }
            occurrences.append(next)
            cursor = next
        }
        let cutoff = now.addingTimeInterval(-TimeInterval(tolerance))
        let onTime = occurrences.filter { $0 >= cutoff }
        let missedRuns = occurrences.filter { $0 < cutoff }
        switch missed {
        case .skip:
            return onTime
        case .runOnce(let within):
            guard onTime.isEmpty, let latest = missedRuns.last, now.timeIntervalSince(latest) <= TimeInterval(within)
            else { return onTime }
            return [latest]
        case .catchUp(let max):
            return Array(missedRuns.suffix(max)) + onTime
        }
    }
}
