import Foundation
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan
import Recipes
import Testing

/// 2026-03-02T00:00:00Z, a Monday.
let monday = Date(timeIntervalSince1970: 1_772_409_600)
func hours(_ value: Double) -> Date { monday.addingTimeInterval(value * 3_600) }

func trigger(_ cron: String, missed: MissedRunPolicy = .skip, jitter: Int = 0) throws -> Trigger {
    let delay = jitter > 0 ? ", randomized_delay: \(jitter)s" : ""
    let yaml = """
        agent: a
        jobs:
          - id: j
            schedule: { cron: "\(cron)"\(delay) }
            steps:
              - follow: someone
        """
    let recipe = try RecipeLoader.load(bytes: Array(yaml.utf8), file: "t.yaml").get()
    var trigger = recipe.jobs[0].trigger
    trigger.missed = missed
    return trigger
}

@Suite("Which occurrences are due")
struct OccurrencePlannerTests {
    /// A first run starts at now: a new recipe does not replay its past.
    @Test func firstRunStartsNow() throws {
        let result = OccurrencePlanner.plan(
            trigger: try trigger("0 * * * *"), seed: "s", cursor: nil, lastTick: nil,
            now: hours(5.5))
        #expect(result.due.isEmpty)
        #expect(result.cursor == hours(5.5))
        #expect(result.next?.nominal == hours(6))
    }

    /// Issue 34, observation 2: after a run at 13:00, a clock stepped back to 10:05 set the cursor back to
    /// 10:05 (the 10:30 … 13:00 occurrences planned again), and at 13:31 the 13:30 occurrence was "missed".
    /// Now the cursor stays at 13:00 while the clock is behind it (nothing due, how far behind said), and once
    /// the clock has passed it the current occurrence is on time — whatever the missed-run policy.
    @Test(arguments: [MissedRunPolicy.skip, .catchUp(max: 3), .runOnce(within: 3_600)])
    func aClockSteppedBackNeitherReplaysNorDrops(missed: MissedRunPolicy) throws {
        let every = try trigger("*/30 * * * *", missed: missed)
        let behind = OccurrencePlanner.plan(
            trigger: every, seed: "s", cursor: hours(13), lastTick: hours(13), now: hours(10) + 300)
        #expect(behind.due.isEmpty)
        #expect(behind.skipped.isEmpty)
        #expect(behind.cursor == hours(13))
        #expect(abs((behind.behind ?? 0) - (3 * 3_600 - 300)) < 0.001, "\(String(describing: behind.behind))")
        #expect(behind.next?.nominal == hours(13.5))
        let back = OccurrencePlanner.plan(
            trigger: every, seed: "s", cursor: behind.cursor, lastTick: behind.cursor, now: hours(13.5) + 60)
        #expect(back.due.map(\.nominal) == [hours(13.5)])
        #expect(back.skipped.isEmpty)
        #expect(back.behind == nil)
        #expect(back.cursor == hours(13.5) + 60)
    }

    /// A cron job every 5 minutes sees an hourly occurrence 4 minutes late: on time, not missed.
    @Test func cronCadenceIsNotMissed() throws {
        let result = OccurrencePlanner.plan(
            trigger: try trigger("0 * * * *"), seed: "s", cursor: hours(0.99),
            lastTick: hours(0.99), now: hours(1) + 240)
        #expect(result.due.map(\.nominal) == [hours(1)])
        #expect(result.skipped.isEmpty)
    }

    /// After downtime, `skip` drops missed occurrences with a reason.
    @Test func downtimeSkip() throws {
        let result = OccurrencePlanner.plan(
            trigger: try trigger("0 * * * *"), seed: "s", cursor: hours(0),
            lastTick: hours(0), now: hours(5) + 30)
        #expect(result.due.map(\.nominal) == [hours(5)])
        #expect(result.skipped.map(\.0.nominal) == [hours(1), hours(2), hours(3), hours(4)])
    }

    /// After downtime, `run once within` runs only the latest missed one, if recent enough.
    @Test func downtimeRunOnce() throws {
        let policy = MissedRunPolicy.runOnce(within: 3_600)
        let recent = OccurrencePlanner.plan(
            trigger: try trigger("0 */2 * * *", missed: policy), seed: "s",
            cursor: hours(0), lastTick: hours(0), now: hours(4.5))
        #expect(recent.due.map(\.nominal) == [hours(4)])
        let stale = OccurrencePlanner.plan(
            trigger: try trigger("0 */2 * * *", missed: policy), seed: "s",
            cursor: hours(0), lastTick: hours(0), now: hours(5.5))
        #expect(stale.due.isEmpty)
        #expect(stale.skipped.count == 2)
    }

    /// After downtime, `catch up N` runs the latest N, oldest first.
    @Test func downtimeCatchUp() throws {
        let result = OccurrencePlanner.plan(
            trigger: try trigger("0 * * * *", missed: .catchUp(max: 2)), seed: "s",
            cursor: hours(0), lastTick: hours(0), now: hours(5.5))
        #expect(result.due.map(\.nominal) == [hours(4), hours(5)])
        #expect(result.skipped.count == 3)
    }

    /// Issue 34, observation 8: `catch_up: 3` on the first run ever fired the 07:00 occurrence at 10:00. Before the
    /// state existed nothing was missed: the first run catches nothing up and runs only what is on time; the same
    /// cursor's later downtime is caught up as before.
    @Test func catchUpReplaysNothingFromBeforeTheState() throws {
        let hourly = try trigger("0 * * * *", missed: .catchUp(max: 3))
        let late = OccurrencePlanner.plan(trigger: hourly, seed: "s", cursor: nil, lastTick: nil, now: hours(10) + 600)
        #expect(late.due.isEmpty)
        #expect(late.skipped.isEmpty)
        #expect(late.cursor == hours(10) + 600)
        let onTime = OccurrencePlanner.plan(trigger: hourly, seed: "s", cursor: nil, lastTick: nil, now: hours(10) + 30)
        #expect(onTime.due.map(\.nominal) == [hours(10)])
        let afterDowntime = OccurrencePlanner.plan(
            trigger: hourly, seed: "s", cursor: late.cursor, lastTick: late.cursor, now: hours(15.5))
        #expect(afterDowntime.due.map(\.nominal) == [hours(13), hours(14), hours(15)])
    }

    /// Jitter is deterministic per occurrence: the same seed gives the same fire time on every
    /// run, and an occurrence is due only once its fire time has passed.
    @Test func jitterIsStable() throws {
        let jittered = try trigger("0 * * * *", jitter: 600)
        let first = try #require(OccurrencePlanner.nextOccurrence(jittered, seed: "s", after: hours(0.5)))
        let again = try #require(OccurrencePlanner.nextOccurrence(jittered, seed: "s", after: hours(0.5)))
        #expect(first == again)
        #expect(first.fire >= hours(1) && first.fire <= hours(1) + 600)
        let before = OccurrencePlanner.plan(
            trigger: jittered, seed: "s", cursor: hours(0.9), lastTick: hours(0.9),
            now: first.fire - 1)
        #expect(before.due.isEmpty)
        let after = OccurrencePlanner.plan(
            trigger: jittered, seed: "s", cursor: first.fire - 1,
            lastTick: first.fire - 1, now: first.fire)
        #expect(after.due == [first])
    }
}
