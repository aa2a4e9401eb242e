import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Synchronization
import Testing

/// `SettableClock`'s scaled mode on a manual elapsed source, `TimeScale` parsing, and the
/// `moltbook-sandbox` executable's `--now` / `--time-scale`.
@Suite struct ScaledClockTests {
    static let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z

    /// Real elapsed time that moves only when the test says so.
    final class ManualElapsed: Sendable {
        let value = Mutex<Duration>(.seconds(100))
        func pass(_ duration: Duration) { value.withLock { $0 += duration } }
        var source: @Sendable () -> Duration { { self.value.withLock { $0 } } }
    }

    /// At ×600 the clock reads the start, then 600 s per real second, including fractions.
    @Test func scaledClockRunsFaster() {
        let real = ManualElapsed()
        let clock = SettableClock(start: Self.start, scale: 600, elapsed: real.source)
        #expect(clock.now == Self.start)
        #expect(clock.timeScale == 600)
        real.pass(.seconds(2))
        #expect(clock.now == Self.start + 1_200)
        real.pass(.milliseconds(500))
        #expect(clock.now == Self.start + 1_500)
    }

    /// `advance(by:)` shifts the origin and `set(_:)` puts the clock at an instant; in both cases
    /// the clock goes on running scaled from there.
    @Test func advanceAndSetKeepScaling() {
        let real = ManualElapsed()
        let clock = SettableClock(start: Self.start, scale: 10, elapsed: real.source)
        real.pass(.seconds(1))
        clock.advance(by: 3_600)
        #expect(clock.now == Self.start + 3_610)
        real.pass(.seconds(1))
        #expect(clock.now == Self.start + 3_620)
        let later = Self.start + 86_400
        clock.set(later)
        #expect(clock.now == later)
        real.pass(.seconds(3))
        #expect(clock.now == later + 30)
        clock.advance(by: -60)
        #expect(clock.now == later - 30)
        #expect(clock.timeScale == 10)
    }

    /// Scale 1 is real speed from the start: the semantics of `--now` alone.
    @Test func scaleOneIsRealSpeed() {
        let real = ManualElapsed()
        let clock = SettableClock(start: Self.start, scale: 1, elapsed: real.source)
        real.pass(.milliseconds(1_250))
        #expect(clock.now == Self.start + 1.25)
    }

    /// The other modes are unchanged: an offset clock freezes when set, a fixed one moves only
    /// when told; neither reports a scale.
    @Test func otherModesUnchanged() {
        let offset = SettableClock(offset: 3_600)
        #expect(abs(offset.now.timeIntervalSince(Date()) - 3_600) < 5)
        #expect(offset.timeScale == nil)
        offset.set(Self.start)
        #expect(offset.now == Self.start)
        offset.advance(by: 30)
        #expect(offset.now == Self.start + 30)
        let fixed = SettableClock(fixed: Self.start)
        #expect(fixed.now == Self.start)
        #expect(fixed.timeScale == nil)
    }

    /// The real monotonic source: a ×1000 clock moves at least 100 virtual seconds in 100 ms.
    @Test func monotonicSourceMoves() async throws {
        let clock = SettableClock(start: Self.start, scale: 1_000)
        try await Task.sleep(for: .milliseconds(100))
        #expect(clock.now.timeIntervalSince(Self.start) >= 100)
    }

    /// `--time-scale` values: numbers from 1 to 100 000; anything else is refused.
    @Test(
        arguments: [
            ("600", 600.0), ("1", 1), ("1.5", 1.5), (" 100000 ", 100_000), ("1e3", 1_000),
            ("0", nil), ("0.5", nil), ("-600", nil), ("100001", nil), ("fast", nil), ("", nil), ("nan", nil),
            ("inf", nil),
        ] as [(String, Double?)])
    func timeScaleParsing(text: String, factor: Double?) {
        #expect(TimeScale(text)?.factor == factor)
    }

    /// `moltbook-sandbox --now T --time-scale 600`: GET /_sandbox/clock reads T plus 600× the real
    /// time since start and names the scale; setting the clock keeps it running scaled.
    @Test func sandboxExecutableRunsScaled() async throws {
        let started = ContinuousClock.now
        let sandbox = try await SandboxProcess.start(arguments: [
            "--now", "2026-01-01T00:00:00Z", "--time-scale", "600",
        ])
        defer { Task { await sandbox.stop() } }
        let transport = try CurlTransport(configuration: .init(policy: URLPolicy(allowInsecureLoopback: true)))
        var components = URLComponents(url: sandbox.baseURL, resolvingAgainstBaseURL: false)!
        components.path = "/_sandbox/clock"
        let url = components.url!
        func read() async throws -> (Date, Double?) {
            let answer = try JSONValue.parse(try await transport.send(HTTPRequest(method: .get, url: url)).body)
            let now = try #require(answer["now"]?.string.flatMap(SandboxTime.parse))
            return (now, answer["time_scale"]?.double)
        }
        try await Task.sleep(for: .milliseconds(300))
        let (first, scale) = try await read()
        let bound = ContinuousClock.now - started
        #expect(scale == 600)
        #expect(first.timeIntervalSince(Self.start) >= 0.3 * 600)
        #expect(first.timeIntervalSince(Self.start) <= Self.seconds(bound) * 600)

        let set = HTTPRequest(
            method: .post, url: url, headers: ["Content-Type": "application/json"],
            body: Data(#"{"now":"2026-03-01T00:00:00Z"}"#.utf8))
        #expect(try await transport.send(set).status == 200)
        let march = try #require(SandboxTime.parse("2026-03-01T00:00:00Z"))
        try await Task.sleep(for: .milliseconds(200))
        let (after, _) = try await read()
        #expect(after.timeIntervalSince(march) >= 0.2 * 600)
        #expect(after.timeIntervalSince(march) < 86_400)
    }

    /// Bad `--now` and `--time-scale` values exit 64 with a plain message (no Foundation text).
    @Test(arguments: [
        (["--time-scale", "0"], "--time-scale `0` is not a time scale"),
        (["--time-scale", "200000"], "a number from 1 to 100000"),
        (["--time-scale", "fast"], "--time-scale `fast` is not a time scale"),
        (["--now", "yesterday"], "--now `yesterday` is not an ISO-8601 instant"),
    ])
    func sandboxRefusesBadClockOptions(arguments: [String], message: String) async throws {
        let result = try await ProcessRunner.run("moltbook-sandbox", ["--port", "0"] + arguments, timeout: 20)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!result.stderr.contains("NSCocoaErrorDomain") && !result.stderr.contains("Foundation"))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
