import Foundation
import MoltbookAPI

extension Limiter {
    /// What a response told the limiter.
    public struct Absorbed: Sendable, Equatable {
        /// Classes now held, and until when.
        public var held: [LimitClass: Date] = [:]
        /// A spacing learned from a 429 the local rules did not foresee.
        public var learned: [LimitClass: Double] = [:]
    }

    /// Folds every server hint of one response into the limiter. Server hints win: a class's
    /// next allowed time becomes the later of the local one and the hinted one.
    ///
    /// - `status == 429`: the class the hint names is held for the server's wait (the largest
    ///   it gave; `LimitClass.defaultRetryWait` when it named none). A generic window body
    ///   (`remaining`/`reset_at`, no cooldown fields) holds the request class; otherwise the
    ///   action's class. If the local rules had allowed the request, the server is stricter than
    ///   the profile: the spacing it implies is learned, so the same surprise cannot repeat
    ///   (not for an exhausted daily budget, which is a cap rather than a spacing).
    /// - `X-RateLimit-Remaining` below the local count re-syncs the request class (spent
    ///   admissions recorded so they expire at `X-RateLimit-Reset`); 0 holds it until the reset.
    /// - `daily_remaining` below the local count re-syncs the action's daily rule.
    /// `reservedAt` is when the refused action was admitted locally: a 429 takes that
    /// admission back from the action's class (the request itself still counted).
    /// `window` is the class the `X-RateLimit-*` headers describe, `request` when nil: the
    /// open-source server reports its post and comment limiters in those headers on the post
    /// and comment endpoints, and applying them to every write froze follows and votes for
    /// half an hour after one post.
    @discardableResult
    public mutating func absorb(
        _ hint: RateLimitHint, status: Int, action: LimitClass?, request: LimitClass, reservedAt: Date? = nil,
        window: LimitClass? = nil, at now: Date
    ) -> Absorbed {
        var result = Absorbed()
        expireLearned(at: now)
        if status == 429, let action, let reservedAt { cancel(action, reservedAt: reservedAt) }
        syncWindow(hint, request: window ?? request, at: now, into: &result)
        if let action, let daily = hint.dailyRemaining { syncDaily(daily, for: action, at: now) }
        guard status == 429 else { return result }

        // A window's 429 (a generic body, or headers that say the window is spent) holds the
        // request class and teaches no spacing: the bucket may be shared by every class of the
        // key, or by every agent on one address (issue 33, observation 4).
        let windowSpent = hint.windowRemaining == 0 && hint.windowResetWait(now: now) != nil
        let isWindowShape =
            hint.dailyRemaining == nil
            && ((hint.retryAfterMinutes == nil && (hint.bodyRemaining != nil || hint.resetAt != nil)) || windowSpent)
        // The window's class: the one its headers describe (`window`), else the request class.
        let target = (isWindowShape || action == nil) ? (window ?? request) : action!
        let wait = hint.retryWait(now: now) ?? target.defaultRetryWait
        let until = now.addingTimeInterval(wait)
        hold(target, until: until, detail: "429 " + describe(hint, wait: wait))
        result.held[target] = until

        if target != request, !isWindowShape, hint.dailyRemaining != 0 {
            // The server's word first: the period its prose names ("once every 60 minutes"),
            // at least the wait it asks for. Only a server that names none (a bare Retry-After)
            // leaves the spacing measured from this limiter's last admission, which a write made
            // elsewhere stretches (a 385-minute post spacing was learned so): hence the cap at
            // the longest spacing the documentation gives the class, and the lapse a day after
            // the last surprise (`expireLearned`).
            let measured = lastAdmitted(target).map { until.timeIntervalSince($0) } ?? wait
            let said = hint.period.map { max($0, wait) } ?? max(measured, wait)
            let spacing = min(said, target.documentedMaxSpacing)
            let localSpacing = (rules[target] ?? []).filter { $0.limit == 1 }.map(\.period).max() ?? 0
            if spacing > localSpacing {
                learn(target, spacing: spacing, at: now)
                result.learned[target] = spacing
            }
        }
        return result
    }

    private mutating func syncWindow(
        _ hint: RateLimitHint, request: LimitClass, at now: Date, into result: inout Absorbed
    ) {
        guard let remaining = hint.windowRemaining else { return }
        let reset = hint.windowResetWait(now: now).map { now.addingTimeInterval($0) }
        var classes = [request]
        if let limit = hint.windowLimit, let reset {
            let mark = WindowMark(limit: limit, reset: reset)
            windows[request] = mark
            classes += windows.filter { other, seen in
                other != request && seen.limit == mark.limit && abs(seen.reset.timeIntervalSince(mark.reset)) <= 1
            }.keys.sorted()
        }
        for limitClass in classes {
            if remaining <= 0, let reset, reset > now {
                hold(limitClass, until: reset, detail: "the server's window is spent (remaining 0) until its reset")
                result.held[limitClass] = reset
                continue
            }
            for rule in rules[limitClass] ?? [] {
                let local = tokens(limitClass, at: now)
                guard remaining < local else { continue }
                // Record the admissions the server counted and we did not, timed so that they
                // expire when the server's window resets (or after our own period).
                let stamp = reset.map { min(now, $0.addingTimeInterval(-rule.period)) } ?? now
                consume(limitClass, rule: rule, count: local - remaining, at: stamp)
            }
        }
    }

    private mutating func syncDaily(_ remaining: Int, for action: LimitClass, at now: Date) {
        for rule in rules[action] ?? [] where rule.period >= 86_400 {
            let local = (tokensFor(action, rule: rule, at: now))
            if remaining < local { consume(action, rule: rule, count: local - remaining, at: now) }
        }
    }

    private func tokensFor(_ limitClass: LimitClass, rule: Rule, at now: Date) -> Int {
        var copy = self
        copy.setRules([limitClass: [rule]])
        return copy.tokens(limitClass, at: now)
    }

    private func describe(_ hint: RateLimitHint, wait: Double) -> String {
        var parts: [String] = []
        if let value = hint.retryAfterHeader { parts.append("Retry-After=\(Int(value))") }
        if let value = hint.retryAfterSeconds { parts.append("retry_after_seconds=\(Int(value))") }
        if let value = hint.retryAfterMinutes { parts.append("retry_after_minutes=\(Int(value))") }
        if hint.resetAt != nil { parts.append("reset_at") }
        if parts.isEmpty { parts.append(hint.textWait != nil ? "wait from the message" : "no wait given: default") }
        return parts.joined(separator: " ") + " → \(Int(wait.rounded(.up)))s"
    }
}
