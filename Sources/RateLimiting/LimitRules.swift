import Foundation
import Recipes

/// Turns a limit profile (numbers, from `Recipes`) into limiter rules, and picks the profile
/// for an agent's age.
public enum LimitRules {
    /// How long the first-24-hours profile applies after an agent's `created_at`.
    public static let newAgentPeriod: Double = 86_400

    /// Direct messages: one every 10 seconds and 100 a day, in every profile. Our own pacing, not
    /// the server's: the reference documents no DM limit, only "reasonable use". An agent younger
    /// than 24 hours cannot send DMs at all (the server refuses them); the engine refuses them
    /// itself for such an agent, with that reason, so the first-day profile keeps the same rules
    /// (a `never` here would name a limit instead of the agent's age).
    public static let dmRules: [Rule] = [
        Rule(id: "dm.cooldown", limit: 1, period: 10),
        Rule(id: "dm.daily", limit: 100, period: 86_400),
    ]

    /// The rules of `profile`, per class. Votes, follows and subscriptions have no documented
    /// limit of their own: only the write budget binds them. Direct messages have `dmRules`.
    public static func rules(for profile: LimitProfile) -> [LimitClass: [Rule]] {
        [
            .read: [Rule(id: "read.minute", limit: profile.readsPerMinute, period: 60)],
            .write: [Rule(id: "write.minute", limit: profile.writesPerMinute, period: 60)],
            .post: [Rule(id: "post.cooldown", limit: 1, period: Double(profile.postInterval))],
            .comment: [
                Rule(id: "comment.cooldown", limit: 1, period: Double(profile.commentInterval)),
                Rule(id: "comment.hourly", limit: profile.commentsPerHour, period: 3_600),
                Rule(id: "comment.daily", limit: profile.commentsPerDay, period: 86_400),
            ],
            .submolt: [Rule(id: "submolt.cooldown", limit: 1, period: Double(profile.submoltInterval))],
            .verify: [Rule(id: "verify.minute", limit: 30, period: 60)],
            .dm: dmRules,
        ]
    }

    /// The profile in force for an agent created at `createdAt`, at `now`: the first-24-hours
    /// profile while the agent is young (or its age is unknown: the stricter one is the safe
    /// guess), the established one after; recipe overrides applied to either.
    public static func profile(
        createdAt: Date?, at now: Date, overrides: LimitOverrides? = nil,
        established: LimitProfile = .standard, young: LimitProfile = .newAgent
    ) -> LimitProfile {
        let isYoung = createdAt.map { now.timeIntervalSince($0) < newAgentPeriod } ?? true
        let base = isYoung ? young : established
        return overrides.map { base.applying($0) } ?? base
    }

    /// When the first-24-hours profile lifts for an agent created at `createdAt`.
    public static func profileChange(createdAt: Date) -> Date {
        createdAt.addingTimeInterval(newAgentPeriod)
    }
}
