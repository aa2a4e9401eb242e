import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 19, observation 2: a recipe's identity defaulted to its file name, so `mv daily.yaml
/// daily-post.yaml` posted the same item again. A job is now known by the recipe's `name:`, else
/// its agent, and its id; state written under the old file-name identity is carried over.
@Suite("Stable recipe identity")
struct StableIdentityTests {
    static func dailyRecipe(_ fixture: RunFixture, _ file: String, name: String? = nil) throws -> String {
        try fixture.file(
            file,
            """
            \(name.map { "name: \($0)" } ?? "")
            agent: renamer
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: morning
                schedule: { cron: "0 9 * * *" }
                steps:
                  - post: { submolt: general, title: "Harbour morning {{ date: yyyy-MM-dd }}", content: "Calm." }
            """)
    }

    static let nine = RunFixture.t0.addingTimeInterval(-3_600 + 5)  // 09:00:05 on 1 December

    /// Renamed, then moved into another directory: the 09:00 post is not made again, and the
    /// next day's is made once.
    @Test func renamingOrMovingNeverRepeats() async throws {
        let fixture = try await RunFixture.start(sandboxArguments: ["--config", try RunCrashTests.config()])
        defer { Task { await fixture.stop() } }
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent("renamer")
        let first = try Self.dailyRecipe(fixture, "daily.yaml")
        #expect(try await fixture.run([first, "--once"], at: Self.nine).status == 0)
        let renamed = fixture.home.path + "/daily-post.yaml"
        try FileManager.default.moveItem(atPath: first, toPath: renamed)
        let again = try await fixture.run([renamed, "--once", "--json"], at: Self.nine.addingTimeInterval(300))
        #expect(!again.stdout.contains("Harbour morning"), "\(again.stdout)")
        try FileManager.default.createDirectory(
            atPath: fixture.home.path + "/moved", withIntermediateDirectories: true)
        let moved = fixture.home.path + "/moved/morning.yaml"
        try FileManager.default.moveItem(atPath: renamed, toPath: moved)
        _ = try await fixture.run([moved, "--once"], at: Self.nine.addingTimeInterval(600))
        _ = try await fixture.run([moved, "--once"], at: Self.nine.addingTimeInterval(86_400))
        #expect(
            try await fixture.titles(of: "renamer") == ["Harbour morning 2026-12-01", "Harbour morning 2026-12-02"])
    }

    /// State written when the recipe was known by its file name (here: `name: daily`, what the
    /// file name `daily.yaml` used to give): without the `name:` line the job's cursor is found
    /// under the old name, and nothing is repeated.
    @Test func stateUnderTheFileNameIsCarriedOver() async throws {
        let fixture = try await RunFixture.start(sandboxArguments: ["--config", try RunCrashTests.config()])
        defer { Task { await fixture.stop() } }
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent("renamer")
        let old = try Self.dailyRecipe(fixture, "daily.yaml", name: "daily")
        #expect(try await fixture.run([old, "--once"], at: Self.nine).status == 0)
        let upgraded = try Self.dailyRecipe(fixture, "daily.yaml")
        let again = try await fixture.run([upgraded, "--once", "--json"], at: Self.nine.addingTimeInterval(300))
        #expect(!again.stdout.contains("Harbour morning"), "\(again.stdout)")
        #expect(try await fixture.titles(of: "renamer") == ["Harbour morning 2026-12-01"])
        // The identity's own cursor is written from then on.
        #expect(try await fixture.sqlite("SELECT COUNT(*) FROM schedule_cursors WHERE recipe = 'renamer'") == "1")
    }

    /// Two recipes of one agent without `name:` and a job of the same id: both are known by
    /// their file names, as before identities (nothing that ran before stops), and `validate`
    /// warns that renaming either repeats its actions. Two recipes with the same `name:` and job
    /// id would share one schedule: `run` refuses the later file.
    @Test func clashingJobIds() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("renamer")
        let a = try Self.dailyRecipe(fixture, "a.yaml")
        let b = try Self.dailyRecipe(fixture, "b.yaml")
        let validate = try await fixture.home.run(["validate", a, b])
        #expect(validate.status == 0)
        #expect(
            validate.stderr.contains(
                "b.yaml:6:9: warning: job id `morning` is also in \(a) for agent `renamer`: both recipes are "
                    + "known by their file names"), "\(validate.stderr)")
        let run = try await fixture.run([a, b, "--once", "--json"], at: Self.nine)
        #expect(run.status == 0, "\(run.stderr)")
        let recipes = (try JSONValue.parse(Data(run.stdout.utf8))["items"]?.array ?? []).compactMap {
            $0["recipe"]?.string
        }
        #expect(Set(recipes) == ["a", "b"], "\(run.stdout)")
        // The same `name:` twice: one schedule for two recipes; the later is refused.
        let one = try Self.dailyRecipe(fixture, "one.yaml", name: "evening")
        let two = try Self.dailyRecipe(fixture, "two.yaml", name: "evening")
        let refused = try await fixture.run([one, two, "--once"], at: Self.nine.addingTimeInterval(60))
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("two.yaml:6:9: error: job id `morning` is also in \(one):6:9 under the same name"),
            "\(refused.stderr)")
    }
}
