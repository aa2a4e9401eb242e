import Foundation
import MoltipassTesting
import Testing

/// `run --once` stopped by SIGTERM (a cron timeout) while a generator program runs: the program
/// leads a process group of its own, which the signal does not reach; the run ends it before it
/// exits as the signal would (143), so nothing is left behind.
@Suite("run --once stopped mid-generation")
struct OnceStopTests {
    @Test func sigtermEndsTheGeneratorsToo() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("once_stop")
        let pidFile = fixture.home.path + "/generator.pid"
        let hang = Fixtures.directory.appendingPathComponent("generators/hang-ignoring-term.sh").path
        let recipe = try fixture.file(
            "once.yaml",
            """
            agent: once_stop
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: notes
                schedule: { every: 30m }
                steps:
                  - post: { submolt: general, generate: { command: [\(hang), \(pidFile)], timeout: 5m } }
            """)
        let run = try ChildProcess(
            "moltipass",
            ["run", recipe, "--once", "--state", fixture.statePath, "--now", RunFixture.iso(RunFixture.t0)],
            environment: fixture.home.environment, directory: fixture.home.directory.url)
        let started = Date()
        let pid = try await Self.pid(in: pidFile)
        let program = try #require(pid, "the generator never started: \(run.stderr)")
        #expect(kill(program, 0) == 0, "the generator should be running")
        run.send(SIGTERM)
        let status = await run.waitForExit(timeout: 20)
        let waited = Int(Date().timeIntervalSince(started))
        let said =
            "exit \(status.map { String($0) } ?? "none within 20 s") after SIGTERM (\(waited) s since the run "
            + "started); stderr: \(run.stderr); stdout: \(run.stdout.suffix(2_000))"
        #expect(status == 143, "\(said)")
        var gone = kill(program, 0) != 0
        let killed = Date()
        while !gone, Date().timeIntervalSince(killed) < 5 {
            try await Task.sleep(for: .milliseconds(20))
            gone = kill(program, 0) != 0
        }
        #expect(gone, "the generator program outlived the run")
        #expect(try await fixture.titles(of: "once_stop").isEmpty)
    }

    /// Issue 34, observation 8: a program's `setsid` grandchild left the group the stop kills. A `run --once` told
    /// to stop ends it too (it carries the program's tag), and exits as the signal would.
    @Test func sigtermEndsASetsidGrandchildToo() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("once_detached")
        let pidFile = fixture.home.path + "/grandchild.pid"
        let program = try fixture.file(
            "detaches.sh",
            """
            #!/bin/sh
            setsid sh -c 'echo $$ > \(pidFile).tmp; mv \(pidFile).tmp \(pidFile); exec sleep 300' </dev/null >/dev/null 2>&1 &
            sleep 300
            """)
        chmod(program, 0o755)
        let recipe = try fixture.file(
            "detached.yaml",
            """
            agent: once_detached
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: notes
                schedule: { every: 30m }
                steps:
                  - post: { submolt: general, generate: { command: [\(program)], timeout: 5m } }
            """)
        let run = try ChildProcess(
            "moltipass",
            ["run", recipe, "--once", "--state", fixture.statePath, "--now", RunFixture.iso(RunFixture.t0)],
            environment: fixture.home.environment, directory: fixture.home.directory.url)
        let pid = try await Self.pid(in: pidFile)
        let grandchild = try #require(pid, "the grandchild never started: \(run.stderr)")
        #expect(Self.isAlive(grandchild), "the setsid grandchild should be running")
        run.send(SIGTERM)
        let status = await run.waitForExit(timeout: 20)
        #expect(status == 143, "exit \(status.map { String($0) } ?? "none within 20 s"); stderr: \(run.stderr)")
        var gone = !Self.isAlive(grandchild)
        let killed = Date()
        while !gone, Date().timeIntervalSince(killed) < 5 {
            try await Task.sleep(for: .milliseconds(20))
            gone = !Self.isAlive(grandchild)
        }
        #expect(gone, "the setsid grandchild \(grandchild) outlived the run")
        if !gone { kill(grandchild, SIGKILL) }
    }

    /// The pid a program wrote to `file`, waited for up to 60 s (a loaded CI machine took longer than 15 s).
    static func pid(in file: String) async throws -> pid_t? {
        let started = Date()
        while Date().timeIntervalSince(started) < 60 {
            if let pid = (try? String(contentsOfFile: file, encoding: .utf8))
                .flatMap({ pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
            {
                return pid
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Whether `pid` runs (a zombie waiting for whoever adopted it does not).
    static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        return stat.split(separator: ")").last?.split(separator: " ").first != "Z"
    }
}
