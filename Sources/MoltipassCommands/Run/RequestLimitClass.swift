import Foundation
import MoltbookAPI
import RateLimiting

/// Which limit class a server hint holds, read from a request's method and route template the
/// way the limiter reads a response (`Limiter.absorb`): a 429 holds the action's class (a post,
/// a comment, a vote …), or the request class (`read`/`write`) when the endpoint is no action or
/// the hint is the generic window's; `X-RateLimit-Remaining: 0` holds the request class until
/// the window's reset. For the metrics of 429s and hint waits only: the engine decides with its
/// own limiter.
enum RequestLimitClass {
    /// A server hint that makes a class wait, and for how long.
    struct Wait: Equatable {
        var limitClass: LimitClass
        var seconds: Double
        /// Whether it came with a 429.
        var refused: Bool
    }

    /// The waits an answer's hints ask for, at `now`.
    static func waits(_ observation: RequestObservation, now: Date) -> [Wait] {
        let hint = observation.rateLimit
        let request: LimitClass = observation.method == .get ? .read : .write
        var waits: [Wait] = []
        if let remaining = hint.windowRemaining, remaining <= 0, let reset = hint.windowResetWait(now: now), reset > 0 {
            waits.append(Wait(limitClass: request, seconds: reset, refused: false))
        }
        guard observation.status == 429 else { return waits }
        let isWindowShape =
            hint.retryAfterMinutes == nil && hint.dailyRemaining == nil
            && (hint.bodyRemaining != nil || hint.resetAt != nil)
        let target = isWindowShape ? request : action(observation.method, observation.route) ?? request
        waits.append(
            Wait(limitClass: target, seconds: hint.retryWait(now: now) ?? target.defaultRetryWait, refused: true))
        return waits
    }

    /// The action class of a write route; nil for reads and writes that are no action of their own.
    static func action(_ method: HTTPMethod, _ route: String) -> LimitClass? {
        guard method != .get else { return nil }
        let segments = route.split(separator: "/").map(String.init)
        switch (segments.first ?? "", segments.last ?? "", segments.count) {
        case ("posts", _, 1): return .post
        case ("posts", "comments", _): return .comment
        case ("posts", "upvote", _), ("posts", "downvote", _), ("comments", "upvote", _), ("comments", "downvote", _):
            return .vote
        case ("agents", "follow", _): return .follow
        case ("submolts", "subscribe", _): return .subscribe
        case ("submolts", _, 1): return .submolt
        case (_, "verify", _), (_, "answer", _): return .verify
        case ("agents", "request", _), ("agents", "send", _): return segments.contains("dm") ? .dm : nil
        default: return nil
        }
    }
}
