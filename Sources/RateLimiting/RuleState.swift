import Foundation

/// The persisted state of one rule.
enum RuleState: Sendable, Codable, Equatable {
    /// Admission times, oldest first; at most `limit` are kept (older ones cannot matter).
    case window([Date])
    /// GCRA's theoretical arrival time.
    case gcra(Date?)

    static func empty(for rule: Rule) -> RuleState {
        rule.algorithm == .gcra ? .gcra(nil) : .window([])
    }

    /// The earliest instant at or after `now` when one more admission fits, or nil if never.
    func earliest(for rule: Rule, at now: Date) -> Date? {
        guard rule.limit > 0 else { return nil }
        switch self {
        case .window(let times):
            // Entries "in the future" (the clock went backwards) still count: no tokens minted.
            let relevant = times.filter { $0 > now.addingTimeInterval(-rule.period) }
            guard relevant.count >= rule.limit else { return now }
            return max(now, relevant[relevant.count - rule.limit].addingTimeInterval(rule.period))
        case .gcra(let tat):
            guard let tat else { return now }
            let interval = rule.period / Double(rule.limit)
            let tolerance = rule.period - interval
            return max(now, tat.addingTimeInterval(-tolerance))
        }
    }

    /// Admissions still available at `now`.
    func tokens(for rule: Rule, at now: Date) -> Int {
        guard rule.limit > 0 else { return 0 }
        switch self {
        case .window(let times):
            return max(0, rule.limit - times.filter { $0 > now.addingTimeInterval(-rule.period) }.count)
        case .gcra(let tat):
            guard let tat, tat > now else { return rule.limit }
            let interval = rule.period / Double(rule.limit)
            let used = Int((tat.timeIntervalSince(now) / interval).rounded(.up))
            return max(0, rule.limit - used)
        }
    }

    /// Records one admission at `now` (the caller checked `earliest`).
    func admitting(for rule: Rule, at now: Date) -> RuleState {
        switch self {
        case .window(var times):
            let index = times.firstIndex { $0 > now } ?? times.endIndex
            times.insert(now, at: index)
            return .window(Array(times.suffix(max(rule.limit, 1))))
        case .gcra(let tat):
            let interval = rule.period / Double(max(rule.limit, 1))
            return .gcra(max(tat ?? now, now).addingTimeInterval(interval))
        }
    }

    /// Marks `count` admissions as used at `instant` without checking (server re-sync).
    func consuming(_ count: Int, for rule: Rule, at instant: Date) -> RuleState {
        var state = self
        for _ in 0..<max(0, count) { state = state.admitting(for: rule, at: instant) }
        return state
    }
}
