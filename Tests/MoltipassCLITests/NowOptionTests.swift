import Foundation
import MoltipassTesting
import Testing

/// `--now` (issue 34, observation 8): `--now 0001-01-01` exited 75 "state store failed", and an instant that did
/// not parse was silently the wall clock. Both are usage errors now (exit 64, saying what `--now` takes), in every
/// command that has the option.
@Suite("--now")
struct NowOptionTests {
    @Test(arguments: [
        ["run", "RECIPE", "--once"], ["status", "RECIPE"], ["pause", "someone"], ["resume", "someone"],
        ["history", "someone", "--since", "24h"], ["cancel", "0badcafe"], ["settle", "0badcafe", "--sent"],
        ["generate", "RECIPE", "--step", "notes/1"],
    ])
    func anInstantOutsideTheCalendarIsAUsageError(command: [String]) async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = home.directory.file("notes.yaml").path
        try """
        agent: someone
        jobs:
          - id: notes
            schedule: { every: 1h }
            steps:
              - post: { submolt: general, title: "Notes", content: "Of the hour." }
        """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let arguments = command.map { $0 == "RECIPE" ? recipe : $0 } + ["--state", home.path + "/state.sqlite"]
        for bad in ["0001-01-01T00:00:00Z", "10000-01-01T00:00:00Z", "tomorrow", "2026-13-01T00:00:00Z"] {
            let result = try await home.run(arguments + ["--now", bad])
            #expect(result.status == 64, "\(command) --now \(bad): \(result.stderr)")
            #expect(
                result.stderr.contains("--now takes an ISO-8601 instant from 1970 to 9999"),
                "\(command) --now \(bad): \(result.stderr)")
        }
        let good = try await home.run(arguments + ["--now", "2026-03-01T09:00:00.250Z"])
        #expect(!good.stderr.contains("--now takes"), "\(command): \(good.stderr)")
    }
}
