import Foundation
import Recipes

/// Decides which schedule occurrences of a job are due at an instant. Pure: the cursor, the
/// last tick and `now` are parameters.
///
/// An occurrence that fell since the job's cursor is on time when the runner was alive around
/// it: its previous tick is at most `maxGap` old (a cron job every 5 minutes sees occurrences
/// up to 5 minutes late, and they are not "missed"). After a longer gap (the machine was down),
/// the schedule's missed-run policy decides, with `tolerance` seconds of grace.
public enum OccurrencePlanner {
    /// One occurrence: the nominal schedule time and when it fires (nominal + deterministic jitter).
    public struct Occurrence: Sendable, Equatable, Hashable {
        public var nominal: Date
        public var fire: Date
    }

    /// What the planner found for one job.
    public struct Result: Sendable, Equatable {
        /// Occurrences to run now, oldest first.
        public var due: [Occurrence]
        /// Occurrences dropped by the missed-run policy, with the reason.
        public var skipped: [(Occurrence, String)]
        /// Where the cursor moves when the due ones are journaled.
        public var cursor: Date
        /// The next occurrence still to come (its fire time), if any.
        public var next: Occurrence?
        /// How far `now` is behind the cursor, when the clock stepped back (issue 34): nothing is due
        /// and the cursor stays until the clock passes it again.
        public var behind: TimeInterval?

        public static func == (lhs: Result, rhs: Result) -> Bool {
            lhs.due == rhs.due && lhs.cursor == rhs.cursor && lhs.next == rhs.next && lhs.behind == rhs.behind
                && lhs.skipped.map(\.0) == rhs.skipped.map(\.0) && lhs.skipped.map(\.1) == rhs.skipped.map(\.1)
        }
    }

    /// Plans one job at `now`.
    ///
    /// - Parameters:
    ///   - cursor: the last instant examined for this job; nil on the first run, which looks
    ///     back one day (or the run-once window, if longer) and lets the missed-run policy decide
    ///     about what it finds: `skip` and `catch_up` replay nothing (before the state existed nothing
    ///     was missed), `run_once_within` runs the latest occurrence if it is that recent.
    ///   - lastTick: the runner's previous tick for this job's account, if any.
    ///   - seed: the recipe's jitter seed (stable across runs, so a restart does not re-roll).
    public static func plan(
        trigger: Trigger, seed: String, cursor: Date?, lastTick: Date?, now: Date,
        maxGap: TimeInterval = 3_600, tolerance: Int = 60
    ) -> Result {
        guard let cursor else {
            var window: TimeInterval = 86_400
            if case .runOnce(let within) = trigger.missed { window = max(window, TimeInterval(within)) }
            var first = plan(
                trigger: trigger, seed: seed, cursor: now.addingTimeInterval(-window), lastTick: nil, now: now,
                maxGap: maxGap, tolerance: tolerance)
            // What predates the recipe was not "missed": nothing to report.
            first.skipped = []
            // Nor is it caught up (issue 34, observation 8: the first run ever posted the 07:00 item at
            // 10:00): `catch_up` replays what the runner missed while it was down, and before the state
            // existed there was no runner. Only what is on time runs. `run_once_within` keeps its window:
            // it names how late an occurrence may still run, and the first run honours that.
            if case .catchUp = trigger.missed {
                let cutoff = now.addingTimeInterval(-TimeInterval(tolerance))
                first.due = first.due.filter { $0.fire >= cutoff }
            }
            return first
        }
        // The cursor never moves back (issue 34). A clock that stepped back (an NTP correction, a VM
        // restored from a snapshot, a container with a wrong clock) finds the cursor ahead of it:
        // what lies between was examined already, so nothing is planned again, and the occurrence that
        // is current once the clock has passed the cursor is on time (the cursor counts as the last tick).
        if now < cursor {
            return Result(
                due: [], skipped: [], cursor: cursor, next: nextOccurrence(trigger, seed: seed, after: cursor),
                behind: cursor.timeIntervalSince(now))
        }
        // Occurrences whose *fire* time passed: look back far enough to catch jittered ones.
        let lookBack = cursor.addingTimeInterval(-TimeInterval(trigger.randomizedDelay))
        var nominals: [Date] = []
        var probe = lookBack
        while nominals.count < 10_000, let next = trigger.next(after: probe), next <= now {
            nominals.append(next)
            probe = next
        }
        let fresh = nominals.map { Occurrence(nominal: $0, fire: trigger.fireDate(for: $0, seed: seed)) }
            .filter { $0.fire > cursor && $0.fire <= now }
        let alive = lastTick.map { now.timeIntervalSince($0) <= maxGap } ?? false
        var due: [Occurrence] = []
        var skipped: [(Occurrence, String)] = []
        if alive {
            due = fresh
        } else {
            let cutoff = now.addingTimeInterval(-TimeInterval(tolerance))
            let onTime = fresh.filter { $0.fire >= cutoff }
            let missed = fresh.filter { $0.fire < cutoff }
            switch trigger.missed {
            case .skip:
                due = onTime
                skipped = missed.map { ($0, "missed while the runner was not running (policy: skip)") }
            case .runOnce(let within):
                if onTime.isEmpty, let latest = missed.last, now.timeIntervalSince(latest.fire) <= TimeInterval(within)
                {
                    due = [latest]
                    skipped = missed.dropLast().map { ($0, "missed; only the latest runs (policy: run once)") }
                } else {
                    due = onTime
                    skipped = missed.map { ($0, "missed longer ago than the run-once window") }
                }
            case .catchUp(let max):
                due = Array(missed.suffix(max)) + onTime
                skipped = missed.dropLast(max).map { ($0, "missed beyond the catch-up bound of \(max)") }
            }
        }
        return Result(due: due, skipped: skipped, cursor: now, next: nextOccurrence(trigger, seed: seed, after: now))
    }

    /// The first occurrence whose fire time is after `instant`.
    public static func nextOccurrence(_ trigger: Trigger, seed: String, after instant: Date) -> Occurrence? {
        var probe = instant.addingTimeInterval(-TimeInterval(trigger.randomizedDelay))
        for _ in 0..<1_000 {
            guard let nominal = trigger.next(after: probe) else { return nil }
            let occurrence = Occurrence(nominal: nominal, fire: trigger.fireDate(for: nominal, seed: seed))
            if occurrence.fire > instant { return occurrence }
            probe = nominal
        }
        return nil
    }
}
