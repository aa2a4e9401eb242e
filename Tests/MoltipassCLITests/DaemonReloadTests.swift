import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// SIGHUP reloads the daemon's recipes; a broken recipe on reload keeps the old ones.
@Suite("moltipass run: daemon reload")
struct DaemonReloadTests {
    /// The recipe is broken on disk, then SIGHUP: the daemon logs why and keeps running on the
    /// recipe it had; fixed and SIGHUP again: reloaded; SIGTERM: exit 0.
    @Test func brokenReloadKeepsTheOldRecipes() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("reload_daemon")
        try fixture.queue(count: 3)
        let recipe = try fixture.postingRecipe("reload_daemon")
        let good = try String(contentsOfFile: recipe, encoding: .utf8)
        let at = RunFixture.t0
        try await fixture.setClock(at)
        let daemon = try ChildProcess(
            "moltipass",
            ["run", recipe, "--state", fixture.statePath, "--now", RunFixture.iso(at), "--log-format", "json"],
            environment: fixture.home.environment, directory: fixture.home.directory.url)
        func count(_ fragment: String) -> Int {
            daemon.stdout.split(separator: "\n").filter { $0.contains(fragment) }.count
        }
        let deadline = Date().addingTimeInterval(60)
        while count("\"outcome\":\"done\"") < 1, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(try await fixture.counter("posts_created") == 1)

        try "agent: reload_daemon\njobs:\n  - id: posts\n    schedule: { every: 30x }\n    steps: []\n"
            .write(toFile: recipe, atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        while count("reload failed") < 1, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(count("reload failed; keeping the previous recipes") == 1, "\(daemon.stdout)")
        let failure = daemon.stdout.split(separator: "\n").first { $0.contains("reload failed") }.map(String.init)
        #expect(failure?.contains("run.yaml:4:") == true, "\(failure ?? "")")

        try good.write(toFile: recipe, atomically: true, encoding: .utf8)
        daemon.send(SIGHUP)
        while count("recipes reloaded") < 1, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(count("recipes reloaded") == 1, "\(daemon.stdout)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: 30) == 0, "\(daemon.stderr)")
        #expect(try await fixture.counter("posts_created") == 1)
        #expect(!daemon.stdout.contains("moltbook_sk_"))
    }
}
