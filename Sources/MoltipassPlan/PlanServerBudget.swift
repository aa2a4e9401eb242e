import Foundation
import MoltbookSandbox
import MoltipassEngine

/// The summary's budget column: for each limit the simulated server enforces on a class, the
/// most requests it applied within one of the limit's windows, counted the way the server
/// counts them. Built from what the server applied (`PlanTransport.Tally.accepted`), at the
/// instants it applied them: a write refused by a fault or a 429 is not a sent write, and a
/// write the engine learnt about later (reading back after a lost answer) counts when it was
/// applied, not when the engine heard of it.
enum PlanServerBudget {
    /// One server limit.
    struct Rule: Equatable {
        var id: String
        var limit: Int
        var period: Int
        /// The server counts in fixed windows that start at the first request after the last
        /// window ended (its request and verify limits); otherwise over the trailing period
        /// (cooldowns, hourly and daily comment caps).
        var fixedWindow: Bool
    }

    /// The server's limits on `limitClass` in `profile` (a class with none: empty).
    static func rules(_ limitClass: String, _ profile: SandboxLimitProfile) -> [Rule] {
        var rules: [Rule] = []
        func add(_ id: String, _ limit: Int?, _ period: Int?, fixed: Bool) {
            if let limit, let period, period > 0 {
                rules.append(Rule(id: id, limit: limit, period: period, fixedWindow: fixed))
            }
        }
        let window = profile.requestWindowSeconds
        switch limitClass {
        case "post": add("post.cooldown", 1, profile.postCooldownSeconds, fixed: false)
        case "comment":
            add("comment.cooldown", 1, profile.commentCooldownSeconds, fixed: false)
            add("comment.hourly", profile.commentsPerHour, 3_600, fixed: false)
            add("comment.daily", profile.commentsPerDay, 86_400, fixed: false)
        case "submolt": add("submolt.cooldown", 1, profile.submoltCooldownSeconds, fixed: false)
        case "verify": add("verify.minute", profile.verifyPerMinute, 60, fixed: true)
        case "write":
            if profile.requestsPerWindow == nil { add("write.window", profile.writesPerWindow, window, fixed: true) }
        case "read":
            if profile.requestsPerWindow == nil { add("read.window", profile.readsPerWindow, window, fixed: true) }
        default: break
        }
        return rules
    }

    /// The budgets of one agent's class: each rule of the profile in force, over the times it
    /// was in force (the first-day profile's rules are named `… (first day)`).
    static func budgets(times: [Date], limitClass: String, config: SandboxConfig, createdAt: Date?)
        -> [PlanResult.Budget]
    {
        var young: [Date] = []
        var established: [Date] = []
        let phased = config.limits != config.newAgentLimits
        for time in times.sorted() {
            if phased, let createdAt, config.profile(createdAt: createdAt, now: time) == config.newAgentLimits {
                young.append(time)
            } else {
                established.append(time)
            }
        }
        var result: [PlanResult.Budget] = []
        for (phase, profile, suffix) in [
            (young, config.newAgentLimits, " (first day)"), (established, config.limits, ""),
        ]
        where !phase.isEmpty {
            for rule in rules(limitClass, profile) {
                let peak =
                    rule.fixedWindow
                    ? fixedPeak(phase, period: Double(rule.period))
                    : PlanCollector.peak(phase, period: Double(rule.period))
                result.append(
                    PlanResult.Budget(
                        rule: rule.id + suffix, limit: rule.limit, periodSeconds: Double(rule.period), peak: peak))
            }
        }
        return result
    }

    /// The most of `times` (sorted) in one fixed window: a window opens at the first time after
    /// the previous one closed and lasts `period` seconds.
    static func fixedPeak(_ times: [Date], period: Double) -> Int {
        var start: Date?
        var count = 0
        var best = 0
        for time in times {
            if let opened = start, time.timeIntervalSince(opened) < period {
                count += 1
            } else {
                start = time
                count = 1
            }
            best = max(best, count)
        }
        return best
    }
}
