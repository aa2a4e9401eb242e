import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// The harness's time guard (docs/testing.md, "Time in tests"): in a test at a simulated instant, a
/// command that reads the clock must be given `--now`, or the test fails on any day — not only on
/// the days after the simulated one, as `refusedKeyIsAStoredPause` did once.
@Suite("Time in tests: the harness's guard")
struct TimeGuardTests {
    /// Which invocations the guard names: every command with a hidden or documented `--now`, and
    /// only while `--now` is missing.
    @Test(
        arguments: [
            (["status", "r.yaml", "--state", "s"], "status"),
            (["status", "r.yaml", "--now", "2026-12-01T10:00:00Z"], nil),
            (["run", "r.yaml", "--once"], "run"),
            (["pause", "agent", "--for", "2h"], "pause"),
            (["resume", "agent"], "resume"),
            (["generate", "r.yaml", "--step", "a/1"], "generate"),
            (["cancel", "0badcafe"], "cancel"),
            (["history", "agent", "--since", "24h"], "history"),
            (["state", "migrate", "--to", "postgres://x"], "migrate"),
            (["state", "migrate", "--help"], nil),
            (["keys", "list"], nil),
            (["pending", "--json"], nil),
            (["register", "name"], nil),
        ] as [([String], String?)])
    func theCommandsThatReadTheClock(arguments: [String], named: String?) {
        #expect(KeysHome.commandOnTheWallClock(arguments) == named)
    }

    /// Through the real binary: at a simulated instant `pause` without `--now` is a recorded
    /// failure (a known issue here, so this test fails if the guard stays silent); with `--now`,
    /// or in a test on the wall clock, it is not.
    @Test func aCommandWithoutItsInstantFailsTheTest() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let state = home.path + "/state.sqlite"
        let paused = try await home.run(["pause", "quiet_bot", "--new", "--state", state])
        #expect(paused.status == 0, "\(paused.stderr)")
        let onTheWallClock = try await home.run(["resume", "quiet_bot", "--state", state])
        #expect(onTheWallClock.status == 0, "\(onTheWallClock.stderr)")

        home.simulated.value = RunFixture.t0
        await withKnownIssue("`pause` without --now at a simulated instant") {
            _ = try await home.run(["pause", "quiet_bot", "--state", state])
        }
        let given = try await home.run([
            "pause", "quiet_bot", "--state", state, "--now", RunFixture.iso(RunFixture.t0),
        ])
        #expect(given.status == 0, "\(given.stderr)")
    }

    /// With the wall clock moved ahead (`scripts/test`'s dialect matrix: `scripts/clock-ahead` preloaded with
    /// `CLOCK_AHEAD_SECONDS`), the test process, a system program it starts and the sandbox it starts all stand
    /// at the moved instant: the real one (the kernel's boot time plus the time since boot, which the library
    /// does not move) plus the seconds asked for.
    @Test(.enabled(if: Self.secondsAhead != nil, "the wall clock is not moved in this run"))
    func theMovedClockReachesEveryProcess() async throws {
        let ahead = try #require(Self.secondsAhead)
        let real = try Self.realNow()
        #expect(abs(Date().timeIntervalSince(real) - ahead) < 120, "the test process's clock")
        let date = try await ProcessRunner.runSystem("/bin/date", ["+%s"])
        let child = try #require(Double(date.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(abs(child - real.timeIntervalSince1970 - ahead) < 120, "a system program's clock: \(date.stdout)")
        let sandbox = try await SandboxProcess.start()
        let clock = try await sandboxClock(sandbox)
        await sandbox.stop()
        #expect(abs(clock.timeIntervalSince(real) - ahead) < 120, "the sandbox's clock: \(clock)")
    }

    /// `CLOCK_AHEAD_SECONDS` when the clock-moving library is preloaded.
    static var secondsAhead: TimeInterval? {
        let environment = ProcessInfo.processInfo.environment
        guard environment["LD_PRELOAD"]?.contains("clock-ahead") == true else { return nil }
        return environment["CLOCK_AHEAD_SECONDS"].flatMap(TimeInterval.init)
    }

    /// The real instant, from what the library does not move: the boot time in /proc/stat plus the uptime.
    static func realNow() throws -> Date {
        let stat = try String(contentsOfFile: "/proc/stat", encoding: .utf8)
        let line = try #require(stat.split(separator: "\n").first { $0.hasPrefix("btime ") })
        let boot = try #require(TimeInterval(line.dropFirst(6).trimmingCharacters(in: .whitespaces)))
        let uptime = try String(contentsOfFile: "/proc/uptime", encoding: .utf8)
        let since = try #require(uptime.split(separator: " ").first.flatMap { TimeInterval(String($0)) })
        return Date(timeIntervalSince1970: boot + since)
    }

    /// The sandbox's clock (`GET /_sandbox/clock`).
    func sandboxClock(_ sandbox: SandboxProcess) async throws -> Date {
        var components = URLComponents(url: sandbox.baseURL, resolvingAgainstBaseURL: false)!
        components.path = "/_sandbox/clock"
        let transport = try CurlTransport(configuration: .init(policy: URLPolicy(allowInsecureLoopback: true)))
        let response = try await transport.send(HTTPRequest(method: .get, url: components.url!))
        let now = try JSONValue.parse(response.body)["now"]?.string
        return try #require(now.flatMap(SandboxTime.parse))
    }
}
