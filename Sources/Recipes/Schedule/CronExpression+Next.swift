import CivilDate
import Foundation

extension CronExpression {
    /// The first matching instant strictly after `after`, on the clocks of `zone`; nil if none within `yearLimit` years.
    ///
    /// DST: a matching wall time inside a gap (clocks set forward) runs at the first instant after the gap, so
    /// every gap time collapses into one run; a wall time that happens twice (clocks set back) runs once, at its
    /// first occurrence.
    public func next(after: Date, in zone: TimeZone, yearLimit: Int = 10) -> Date? {
        let startWall = CivilTime.floorDiv(CivilTime.wallSeconds(of: after, in: zone), 60) * 60 + 60
        let startDays = CivilTime.floorDiv(startWall, 86_400)
        var (year, month, day) = CivilDate.date(ofDay: startDays)
        let secondOfDay = startWall - startDays * 86_400
        var hour = secondOfDay / 3_600
        var minute = (secondOfDay % 3_600) / 60
        let lastYear = year + yearLimit

        func nextMonth() {
            month += 1
            day = 1
            hour = 0
            minute = 0
            if month > 12 {
                month = 1
                year += 1
            }
        }
        func nextDay() {
            day += 1
            hour = 0
            minute = 0
            if day > CivilTime.daysInMonth(year: year, month: month) { nextMonth() }
        }
        func nextHour() {
            hour += 1
            minute = 0
            if hour == 24 { nextDay() }
        }
        func nextMinute() {
            minute += 1
            if minute == 60 { nextHour() }
        }

        while year <= lastYear {
            if months & (1 << UInt64(month)) == 0 {
                nextMonth()
                continue
            }
            let days = CivilDate.days(year: year, month: month, day: day)
            if !dayMatches(day: day, month: month, weekday: CivilTime.weekday(days: days)) {
                nextDay()
                continue
            }
            if hours & (1 << UInt64(hour)) == 0 {
                nextHour()
                continue
            }
            if minutes & (1 << UInt64(minute)) == 0 {
                nextMinute()
                continue
            }
            let wall = days * 86_400 + hour * 3_600 + minute * 60
            switch CivilTime.resolve(wall: wall, in: zone) {
            case .unique(let instant), .repeated(let instant, _), .gap(let instant):
                if instant > after { return instant }
            }
            nextMinute()
        }
        return nil
    }
}
