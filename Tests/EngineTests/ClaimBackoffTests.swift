import Foundation
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan
import Testing

/// The `claim --wait` schedule at fixed instants, and the loop run on a manual clock.
@Suite("claim backoff")
struct ClaimBackoffTests {
    /// The default schedule: 3 s in the first minute, 9 s until five minutes, 30 s after;
    /// a clock that stepped back (negative elapsed) or NaN is treated as the start.
    @Test(arguments: [
        (0.0, 3.0), (2.9, 3.0), (59.9, 3.0), (60.0, 9.0), (299.0, 9.0), (300.0, 30.0), (86_400.0, 30.0),
        (-5.0, 3.0), (Double.nan, 3.0),
    ])
    func standardSchedule(elapsed: Double, expected: Double) {
        #expect(ClaimBackoff.standard.delay(elapsed: elapsed) == expected)
    }

    /// A short first interval (the tests' `--poll-interval 0.2`) keeps the phases, bounded by the maximum.
    @Test func shortInterval() {
        let backoff = ClaimBackoff(initial: 0.2)
        #expect(backoff.delay(elapsed: 10) == 0.2)
        #expect(backoff.delay(elapsed: 61) == 0.6000000000000001)
        #expect(backoff.delay(elapsed: 301) == 30)
        let slowStart = ClaimBackoff(initial: 40)
        #expect(slowStart.delay(elapsed: 61) == 40)  // never above max(initial, maximum)
    }

    /// Durations: units, combinations and plain seconds; garbage and zero are refused.
    @Test func durations() {
        #expect(ClaimBackoff.parseDuration("10m") == 600)
        #expect(ClaimBackoff.parseDuration("90s") == 90)
        #expect(ClaimBackoff.parseDuration("1h30m") == 5400)
        #expect(ClaimBackoff.parseDuration("45") == 45)
        #expect(ClaimBackoff.parseDuration("0.5s") == 0.5)
        for bad in ["", "0", "10x", "m", "1h30", "-5s"] { #expect(ClaimBackoff.parseDuration(bad) == nil, "\(bad)") }
    }

    /// The waiter sleeps by the schedule, honours a longer server wait, never sleeps past the
    /// deadline, makes a last poll at it and reports the polls.
    @Test func waiterOnManualClock() async throws {
        let clock = ManualClock()
        let waiter = ClaimWaiter(backoff: .standard, timeout: 70)
        var answers: [ClaimWaiter.Poll] = [.pending, .retry(after: 20), .pending]
        let outcome = try await waiter.wait(
            now: { clock.now }, sleep: { clock.advance($0) },
            poll: { answers.isEmpty ? .pending : answers.removeFirst() })
        #expect(clock.sleeps.prefix(3) == [3, 20, 3])
        #expect(clock.sleeps.reduce(0, +) == 70)
        #expect(clock.sleeps.last == 70 - clock.sleeps.dropLast().reduce(0, +))
        #expect(outcome == .timedOut(polls: clock.sleeps.count + 1))
    }

    /// A claim seen on the third poll ends the wait at once.
    @Test func waiterStopsWhenClaimed() async throws {
        let clock = ManualClock()
        var answers: [ClaimWaiter.Poll] = [.pending, .pending, .claimed]
        let outcome = try await ClaimWaiter(timeout: 600).wait(
            now: { clock.now }, sleep: { clock.advance($0) }, poll: { answers.removeFirst() })
        #expect(outcome == .claimed(polls: 3))
        #expect(clock.sleeps == [3, 3])
    }

    /// The delay for one poll: server wait wins over the schedule, the deadline caps both.
    @Test func delayTable() {
        let waiter = ClaimWaiter(timeout: 100)
        #expect(waiter.delay(after: .pending, elapsed: 0) == 3)
        #expect(waiter.delay(after: .retry(after: nil), elapsed: 0) == 3)
        #expect(waiter.delay(after: .retry(after: 45), elapsed: 0) == 45)
        #expect(waiter.delay(after: .retry(after: 45), elapsed: 90) == 10)
        #expect(waiter.delay(after: .pending, elapsed: 99) == 1)
        #expect(waiter.delay(after: .pending, elapsed: 120) == 0)
    }
}

/// A clock that moves only when the code under test sleeps.
final class ManualClock: @unchecked Sendable {
    private(set) var now = Date(timeIntervalSince1970: 1_800_000_000)
    private(set) var sleeps: [Double] = []

    func advance(_ seconds: Double) {
        sleeps.append(seconds)
        now += seconds
    }
}
