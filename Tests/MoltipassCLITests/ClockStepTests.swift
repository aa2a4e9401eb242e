import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 34, observation 2, through the binary: after a run at 13:00, a run whose clock said 10:05 set the
/// job's cursor back to 10:05 and planned the 10:30 … 13:00 occurrences again, and at 13:31 the 13:30
/// occurrence was skipped as missed. The server's clock does not step back with ours: the sandbox stays at
/// the real instant while the runs are told the wrong one.
@Suite("A clock that steps back")
struct ClockStepTests {
    @Test func neitherReplaysNorDrops() async throws {
        let (fixture, recipe) = try await RunFixture.establishedPoster("stepping_poster")
        defer { Task { await fixture.stop() } }
        let t0 = RunFixture.t0  // 10:00, Item 0 posted
        let thirteen = t0.addingTimeInterval(3 * 3_600 + 5)
        let first = try await fixture.run([recipe, "--once"], at: thirteen)
        #expect(first.status == 0, "\(first.stderr)")
        let cursor = try await fixture.sqlite("SELECT last_fired FROM schedule_cursors;")

        // The clock steps back to 10:05, then runs on to 10:35 (the old code replayed 10:30 there).
        for wrong in [t0.addingTimeInterval(300), t0.addingTimeInterval(35 * 60)] {
            let behind = try await fixture.home.run([
                "run", recipe, "--once", "--json", "--detailed-exitcode", "--state", fixture.statePath, "--now",
                RunFixture.iso(wrong),
            ])
            #expect(behind.status == 3, "nothing is due: \(behind.stderr)")
            let items = try JSONValue.parse(Data(behind.stdout.utf8))["items"]?.array ?? []
            #expect(
                items.contains {
                    $0["outcome"]?.string == "skipped"
                        && $0["reason"]?.string?.contains("the clock stepped back; nothing is planned again") == true
                },
                "the step is said: \(behind.stdout)")
            #expect(try await fixture.sqlite("SELECT last_fired FROM schedule_cursors;") == cursor)
        }
        #expect(try await fixture.titles(of: "stepping_poster") == ["Item 0", "Item 1"])

        // The clock is right again: the 13:30 occurrence is on time, not missed.
        let back = try await fixture.run([recipe, "--once", "--json"], at: t0.addingTimeInterval(3.5 * 3_600 + 60))
        #expect(back.status == 0, "\(back.stderr)")
        #expect(!back.stdout.contains("missed"), "\(back.stdout)")
        #expect(try await fixture.titles(of: "stepping_poster") == ["Item 0", "Item 1", "Item 2"])
        #expect(try await fixture.counter("duplicate_contents") == 0)
    }
}
