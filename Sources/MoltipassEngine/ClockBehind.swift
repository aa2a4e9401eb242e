import Foundation
import Recipes

/// The jobs a pass found with the clock behind their cursor (issue 34, deliverable 2): the
/// cursor never moves back, and the planner uses it as the runner's last tick, so a clock left
/// behind for over an hour (a VM restored from yesterday's snapshot until NTP put it right) made
/// the gap look like downtime, and the occurrence current once the clock was right again was
/// skipped as "missed while the runner was not running". Passes behind the cursor prove the
/// runner was alive: a job marked here plans, once the clock has passed its cursor again, the
/// latest occurrence that fell since (the current one) as on time; the earlier ones fell while
/// the clock was wrong and are skipped with that reason, never replayed.
///
/// Stored in `limiter_state` under `clock-behind` as `{"jobs": [job key, …]}`.
struct ClockBehind: Sendable, Equatable, Codable {
    static let stateKey = "clock-behind"

    var jobs: Set<String> = []

    init() {}

    init(jobs: Set<String>) { self.jobs = jobs }

    init?(stored: Data) {
        guard let decoded = try? JSONDecoder().decode(Self.self, from: stored) else { return nil }
        self = decoded
    }

    /// The same jobs, the same bytes: sorted.
    var stored: Data {
        (try? JSONEncoder().encode(["jobs": jobs.sorted()])) ?? Data("{}".utf8)
    }

    /// The plan of a job marked here, once `now` has passed its cursor: the runner counts as
    /// alive, only the latest occurrence runs.
    static func plan(trigger: Trigger, seed: String, cursor: Date?, now: Date, maxGap: TimeInterval)
        -> OccurrencePlanner.Result
    {
        var result = OccurrencePlanner.plan(
            trigger: trigger, seed: seed, cursor: cursor, lastTick: now, now: now, maxGap: maxGap)
        guard result.due.count > 1, let current = result.due.last else { return result }
        result.skipped += result.due.dropLast().map {
            ($0, "fell while the clock was behind; only the current occurrence runs")
        }
        result.due = [current]
        return result
    }
}
