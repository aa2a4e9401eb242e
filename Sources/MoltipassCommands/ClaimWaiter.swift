import Foundation
import MoltipassEngine

/// The polling loop of `claim --wait`, with the clock and the sleep passed in so tests run it
/// at fixed instants without waiting.
public struct ClaimWaiter: Sendable {
    /// What one poll found.
    public enum Poll: Sendable, Equatable {
        case claimed
        case pending
        /// A transient failure (5xx, network, 429); `after` is the server's wait when it sent one.
        case retry(after: Double?)
    }

    /// How the wait ended.
    public enum Outcome: Sendable, Equatable {
        case claimed(polls: Int)
        case timedOut(polls: Int)
    }

    public var backoff: ClaimBackoff
    /// Seconds from the first poll after which the wait gives up.
    public var timeout: Double

    public init(backoff: ClaimBackoff = .standard, timeout: Double) {
        self.backoff = backoff
        self.timeout = timeout
    }

    /// The sleep after a poll at `elapsed` that found `poll`: the schedule's delay, at least the
    /// server's wait (server hints win), and never past the deadline.
    public func delay(after poll: Poll, elapsed: Double) -> Double {
        var delay = backoff.delay(elapsed: elapsed)
        if case .retry(let after?) = poll { delay = max(delay, after) }
        return max(0, min(delay, timeout - elapsed))
    }

    /// Polls until `poll` says claimed or `timeout` has passed (a last poll is made at the deadline).
    public func wait(
        now: () -> Date, sleep: (Double) async throws -> Void, poll: () async throws -> Poll
    ) async throws -> Outcome {
        let start = now()
        var polls = 0
        while true {
            let result = try await poll()
            polls += 1
            if result == .claimed { return .claimed(polls: polls) }
            let elapsed = now().timeIntervalSince(start)
            if elapsed >= timeout { return .timedOut(polls: polls) }
            try await sleep(delay(after: result, elapsed: elapsed))
        }
    }
}
