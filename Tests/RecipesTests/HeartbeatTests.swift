import Foundation
import Testing

@testable import Recipes

/// `schedule: { heartbeat: 30m }` (issue 22): `every:` with a phase from the agent's name and
/// one beat after a stop.
struct HeartbeatTests {
    func load(_ text: String, file: String = "/r/test.yaml") -> Result<Recipe, Diagnostics> {
        RecipeLoader.load(bytes: Array(text.utf8), file: file) { _ in nil }
    }

    func trigger(_ schedule: String, agent: String = "a", extra: String = "") throws -> Trigger {
        let text = """
            agent: \(agent)
            \(extra)jobs:
              - id: j
                schedule: \(schedule)
                steps: [{ follow: x }]
            """
        return try #require(try load(text).get().jobs.first).trigger
    }

    /// A heartbeat is `every:` from the agent's origin, missed beats run once within one interval.
    @Test func decodesToEvery() throws {
        let beat = try trigger("{ heartbeat: 30m }", agent: "reef_scout")
        #expect(
            beat.schedule
                == .every(seconds: 1_800, origin: Schedule.heartbeatOrigin(agent: "reef_scout", interval: 1_800)))
        #expect(beat.missed == .runOnce(within: 1_800))
        #expect(beat.randomizedDelay == 0)
        #expect(beat.activeHours == nil)
    }

    /// The phase is the agent's alone: the same in another file, under another `name:`, `seed:`
    /// or zone; 0 ≤ phase < interval; another agent gets another phase.
    @Test func originIsTheAgents() throws {
        let base = try trigger("{ heartbeat: 30m }", agent: "tide_clerk")
        let elsewhere = try #require(
            try load(
                "name: other\nseed: s\ntime_zone: Asia/Kolkata\nagent: tide_clerk\njobs:\n  - id: k\n"
                    + "    schedule: { heartbeat: 30m }\n    steps: [{ follow: x }]\n", file: "/elsewhere/x.yaml"
            ).get().jobs.first)
        #expect(elsewhere.trigger.schedule == base.schedule)
        guard case .every(_, let origin) = base.schedule else {
            Issue.record("not every: \(base.schedule)")
            return
        }
        let phase = origin.timeIntervalSince1970 - 946_684_800
        #expect(phase >= 0 && phase < 1_800)
        #expect(Schedule.heartbeatOrigin(agent: "tide_clerk", interval: 1_800) == origin)
        #expect(Schedule.heartbeatOrigin(agent: "reef_scout", interval: 1_800) != origin)
    }

    /// Many agents on one interval spread over it: 200 agents on a 30-minute heartbeat beat in
    /// at least 25 of its 30 minutes, and no minute has more than 20 of them.
    @Test func manyAgentsSpread() {
        var perMinute: [Int: Int] = [:]
        for index in 0..<200 {
            let origin = Schedule.heartbeatOrigin(agent: "agent-\(index)", interval: 1_800)
            let minute = Int(origin.timeIntervalSince1970 - 946_684_800) / 60
            perMinute[minute, default: 0] += 1
        }
        #expect(perMinute.keys.allSatisfy { (0..<30).contains($0) })
        #expect(perMinute.count >= 25)
        #expect((perMinute.values.max() ?? 0) <= 20)
    }

    /// An agent's hourly beats fall on its half-hourly ones (one inbox read serves both).
    @Test func dividingIntervalsBeatTogether() throws {
        let half = try trigger("{ heartbeat: 30m }", agent: "harbor_digest")
        let hour = try trigger("{ heartbeat: 1h }", agent: "harbor_digest")
        let from = instant("2026-12-01T00:00:00Z")
        var halfBeats: Set<Date> = []
        var cursor = from
        for _ in 0..<48 {
            guard let next = half.next(after: cursor) else { break }
            halfBeats.insert(next)
            cursor = next
        }
        cursor = from
        for _ in 0..<23 {
            let next = try #require(hour.next(after: cursor))
            #expect(halfBeats.contains(next), "\(next)")
            cursor = next
        }
    }

    /// A runner down for three hours beats once on return (the latest missed beat), never a
    /// burst; on time it beats as usual; `missed:` still overrides.
    @Test func missedBeatsRunOnce() throws {
        let beat = try trigger("{ heartbeat: 30m }", agent: "a")
        let last = try #require(beat.next(after: instant("2026-12-01T08:00:00Z")))
        let now = last.addingTimeInterval(3 * 3_600 + 600)
        let due = beat.due(after: last, now: now)
        #expect(due.count == 1)
        #expect(due.first.map { now.timeIntervalSince($0) } == 600)
        let onTime = last.addingTimeInterval(1_800 + 5)
        #expect(beat.due(after: last, now: onTime) == [last.addingTimeInterval(1_800)])
        #expect(try trigger("{ heartbeat: 30m, missed: skip }").missed == .skip)
        #expect(try trigger("{ heartbeat: 30m, missed: { catch_up: 2 } }").missed == .catchUp(max: 2))
    }

    /// Jitter, active hours and a zone work with a heartbeat as with `every:`.
    @Test func jitterAndActiveHours() throws {
        let beat = try trigger(
            "{ heartbeat: 1h, randomized_delay: 5m, active_hours: \"08:00-20:00\", time_zone: Europe/Berlin }")
        #expect(beat.randomizedDelay == 300)
        #expect(beat.timeZone.identifier == "Europe/Berlin")
        var cursor = instant("2026-12-01T00:00:00Z")
        for _ in 0..<30 {
            let next = try #require(beat.next(after: cursor))
            let hour = Calendar(identifier: .gregorian).dateComponents(in: beat.timeZone, from: next).hour ?? -1
            #expect((8..<20).contains(hour), "\(next)")
            cursor = next
        }
    }

    struct Mistake: Sendable, CustomTestStringConvertible {
        var schedule: String
        var expected: String
        var testDescription: String { schedule }
    }

    /// The schedule is on line 4 from column 15.
    static let mistakes: [Mistake] = [
        Mistake(schedule: "{ heartbeat: 4m }", expected: "4:28 heartbeat 4m is out of range; expected from 5m to 24h"),
        Mistake(schedule: "{ heartbeat: 25h }", expected: "4:28 heartbeat 1d1h is out of range"),
        Mistake(schedule: "{ heartbeat: 30 }", expected: "4:30 heartbeat `30`: `30` has no unit"),
        Mistake(
            schedule: "{ heartbeat: 30m, every: 30m }", expected: "4:15 the schedule has both `every` and `heartbeat`"),
        Mistake(
            schedule: "{ heartbeat: 30m, start: 2026-01-01T00:00:00Z }",
            expected: "4:40 `start` only applies to `every`; expected no `start:`: a heartbeat's phase"),
        Mistake(schedule: "{ hearbeat: 30m }", expected: "4:17 unknown key `hearbeat` in the schedule"),
    ]

    @Test(arguments: mistakes) func mistake(_ mistake: Mistake) {
        let text = "agent: a\njobs:\n  - id: j\n    schedule: \(mistake.schedule)\n    steps: [{ follow: x }]\n"
        guard case .failure(let diagnostics) = load(text) else {
            Issue.record("loaded")
            return
        }
        let lines = diagnostics.items.map { "\($0.line):\($0.column) \($0.message); expected \($0.expected ?? "")" }
        #expect(lines.contains { $0.hasPrefix(mistake.expected) }, "\(lines)")
    }

    /// `hearbeat` is suggested `heartbeat`.
    @Test func suggestion() {
        let text = "agent: a\njobs:\n  - id: j\n    schedule: { hearbeat: 30m }\n    steps: [{ follow: x }]\n"
        guard case .failure(let diagnostics) = load(text) else {
            Issue.record("loaded")
            return
        }
        #expect(diagnostics.items.contains { $0.suggestion == "heartbeat" })
    }
}
