import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// Issue 23, metrics and probes, through the binaries: a `moltipass run` daemon with `--listen`
/// against a `moltbook-sandbox` process, scraped over a real socket and checked with `promtool`;
/// `/healthz` and `/readyz` as a key breaks and is mended and as the daemon stops; `run --once
/// --metrics-textfile`. No key ever appears in what the listener serves.
@Suite("moltipass run --listen and --metrics-textfile")
struct MetricsTests {
    static let modelKey = "sk-METRICSmodelKEY0not0real000000"

    /// The daemon's `--listen` URL, from its `listening on` log line (waits up to 30 s).
    static func listenPort(_ daemon: ChildProcess) async throws -> UInt16 {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            for line in daemon.stdout.split(separator: "\n") where line.contains("\"event\":\"listen\"") {
                guard let range = line.range(of: "\"url\":\"http://127.0.0.1:") else { continue }
                let port = line[range.upperBound...].prefix { $0.isNumber }
                if let port = UInt16(port) { return port }
            }
            if !daemon.isRunning { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HarnessError("the daemon printed no listening line: \(daemon.stdout)\n\(daemon.stderr)")
    }

    /// The value of the series `series` (`name{labels}`) in an exposition, or nil when absent.
    static func value(_ text: String, _ series: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
            .flatMap { Double($0.dropFirst(series.count + 1)) }
    }

    /// Scrapes until `condition` holds of the exposition (or 60 s), and returns the last one.
    static func scrape(_ port: UInt16, until condition: (String) -> Bool) async throws -> String {
        let deadline = Date().addingTimeInterval(60)
        var text = ""
        while Date() < deadline {
            let response = try await RawHTTP.request("GET", "/metrics", port: port)
            #expect(response.status == 200)
            text = response.body
            if condition(text) { return text }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the condition never held; last scrape:\n\(text)")
        return text
    }

    /// `promtool check metrics` on `text` (lint included: HELP, TYPE, names, units). Skipped
    /// only when promtool is missing outside CI (Debian's `prometheus` package has it); in CI its
    /// absence fails.
    static func promtoolCheck(_ text: String) async throws {
        guard
            let promtool = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            #expect(
                ProcessInfo.processInfo.environment["CI"] == nil, "promtool is missing (apt-get install prometheus)")
            return
        }
        let directory = try TemporaryDirectory(prefix: "moltipass-metrics")
        defer { directory.remove() }
        let file = directory.file("metrics.prom").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let checked = try await ProcessRunner.runSystem("/bin/sh", ["-c", "'\(promtool)' check metrics < '\(file)'"])
        #expect(checked.status == 0, "promtool: \(checked.stdout)\(checked.stderr)\n\(text)")
    }

    /// Every metric the exposition always has (the others appear with their first event).
    static let alwaysExposed = [
        "moltipass_build_info", "moltipass_rate_limited_responses_total", "moltipass_hint_waits_total",
        "moltipass_hint_wait_seconds_total", "moltipass_challenges_total", "moltipass_pass_duration_seconds",
        "moltipass_lease_held", "moltipass_agent_paused", "moltipass_next_allowed_timestamp_seconds",
        "moltipass_last_tick_timestamp_seconds", "moltipass_actions_total",
        "moltipass_http_client_request_duration_seconds",
    ]

    /// A daemon at ×600 posting from a queue (a model key stored beside the agent's): `/metrics`
    /// passes promtool and has every metric, the post counted done by agent and action, its
    /// request timed by route, the lease held, the post class's next allowed time in the future;
    /// after another half hour the counters have moved. `/healthz` and `/readyz` are 200; neither
    /// key appears anywhere the listener answers or in the log. SIGTERM during a post: `/readyz`
    /// 503 while the pass finishes, `/healthz` still 200, exit 0, the port closed.
    @Test func daemonServesMetricsAndProbes() async throws {
        let start = RunFixture.t0
        let fixture = try await RunFixture.start(
            sandboxArguments: [
                "--now", RunFixture.iso(start), "--time-scale", "600",
            ])
        defer { Task { await fixture.stop() } }
        try await fixture.setClock(start.addingTimeInterval(-2 * 86_400))
        try await fixture.agent("metrics_writer")
        try await fixture.setClock(start)
        let addedModel = try await fixture.home.run(
            ["keys", "add", "--model", "metrics_model"], stdin: Self.modelKey + "\n", recorded: false)
        #expect(addedModel.status == 0, "\(addedModel.stderr)")
        let exported = try await fixture.home.run(["keys", "export", "metrics_writer", "--reveal"], recorded: false)
        let agentKey = exported.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(agentKey.hasPrefix("moltbook_sk_"))
        try fixture.queue(count: 30)
        let recipe = try fixture.file(
            "metrics.yaml",
            """
            agent: metrics_writer
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: posts
                schedule: { every: 30m }
                steps:
                  - post: { submolt: general, queue: queue.yaml }
            """)
        let daemon = try ChildProcess(
            "moltipass",
            [
                "run", recipe, "--state", fixture.statePath, "--now", RunFixture.iso(start), "--time-scale", "600",
                "--log-format", "json", "--listen", "127.0.0.1:0",
            ],
            environment: fixture.home.environment, directory: fixture.home.directory.url)
        defer { if daemon.isRunning { daemon.send(SIGKILL) } }
        let port = try await Self.listenPort(daemon)
        let done = "moltipass_actions_total{agent=\"metrics_writer\",action=\"post\",outcome=\"done\"}"
        let first = try await Self.scrape(port) { (Self.value($0, done) ?? 0) >= 1 }
        #expect((Self.value(first, done) ?? 0) >= 1, "\(daemon.stdout.suffix(6_000))\n\(daemon.stderr.suffix(3_000))")
        try await Self.promtoolCheck(first)
        for name in Self.alwaysExposed {
            #expect(first.contains("# HELP \(name) ") && first.contains("# TYPE \(name) "), "\(name)")
        }
        #expect(first.contains("moltipass_build_info{version=\"0.1.0\",swift=\""))
        #expect(Self.value(first, "moltipass_lease_held{agent=\"metrics_writer\"}") == 1)
        let posts =
            "moltipass_http_client_request_duration_seconds_count{method=\"POST\",route=\"/posts\",status_class=\"2xx\"}"
        #expect((Self.value(first, posts) ?? 0) >= 1, "\(first)")
        let lastTick = try #require(Self.value(first, "moltipass_last_tick_timestamp_seconds"))
        #expect(lastTick >= start.timeIntervalSince1970)
        let nextPost = try #require(
            Self.value(first, "moltipass_next_allowed_timestamp_seconds{agent=\"metrics_writer\",class=\"post\"}"))
        #expect(nextPost > lastTick, "after a post the next one waits")
        #expect(Self.value(first, "moltipass_agent_paused{agent=\"metrics_writer\",kind=\"suspended\"}") == 0)

        // Another half hour (3 s here): the counters move.
        let passes = try #require(Self.value(first, "moltipass_pass_duration_seconds_count"))
        let second = try await Self.scrape(port) { (Self.value($0, done) ?? 0) >= 2 }
        #expect(try #require(Self.value(second, "moltipass_pass_duration_seconds_count")) > passes)
        #expect(try #require(Self.value(second, posts)) > Self.value(first, posts) ?? 0)
        #expect(try #require(Self.value(second, "moltipass_last_tick_timestamp_seconds")) > lastTick)

        let live = try await RawHTTP.request("GET", "/healthz", port: port)
        #expect(live.status == 200 && live.body == "ok\n")
        let ready = try await RawHTTP.request("GET", "/readyz", port: port)
        #expect(ready.status == 200 && ready.body == "ok\n", "\(ready.body)")
        for text in [first, second, live.raw, ready.raw, daemon.stdout, daemon.stderr] {
            #expect(!text.contains(agentKey) && !text.contains("moltbook_sk_"))
            #expect(!text.contains(Self.modelKey) && !text.contains("sk-METRICS"))
        }

        // SIGTERM while a post is on its way (the sandbox answers it 3 s late): not ready at once.
        // The delay first, then the count: a post counted after it is one the delay holds (a
        // post answered between a count taken first and the delay let the daemon go idle). Every
        // post is delayed, not only the next: at ×600 the next can be a refused one (the two
        // clocks a second apart at the cooldown's edge), and a one-shot delay spent on that
        // refusal left the counted post answered at once, the daemon stopped before `/readyz`.
        try await fixture.admin(
            .post, "faults",
            .object([
                "mode": .string("delay"), "method": .string("POST"), "path_prefix": .string("/api/v1/posts"),
                "delay_seconds": .number(3), "count": .number(1_000),
            ]))
        let created = try await fixture.counter("posts_created")
        let deadline = Date().addingTimeInterval(30)
        while try await fixture.counter("posts_created") <= created, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        daemon.send(SIGTERM)
        try await Task.sleep(for: .milliseconds(200))
        let draining = try await RawHTTP.request("GET", "/readyz", port: port)
        #expect(draining.status == 503, "\(draining.raw)")
        #expect(draining.body == "shutting down: the runner is finishing its pass and releasing its agents\n")
        #expect(try await RawHTTP.request("GET", "/healthz", port: port).status == 200)
        #expect(await daemon.waitForExit(timeout: 30) == 0, "\(daemon.stderr)")
        await #expect(throws: (any Error).self) { _ = try await RawHTTP.request("GET", "/healthz", port: port) }
        try await fixture.admin(.delete, "faults")
        #expect(!daemon.stdout.contains(agentKey) && !daemon.stdout.contains(Self.modelKey))
    }

    /// A key the server refuses: `/readyz` is 503 and names that agent with the words of
    /// `status --health` (the same message), the good agent unnamed, `/healthz` still 200; the
    /// right key stored with `keys add --replace`: ready again without a restart.
    @Test func brokenKeyMakesTheRunnerNotReady() async throws {
        let fixture = try await RunFixture.start(
            sandboxArguments: ["--now", RunFixture.iso(RunFixture.t0), "--time-scale", "600"])
        defer { Task { await fixture.stop() } }
        try await fixture.agent("ready_good")
        let realKey = try await registerOnSandbox(fixture.sandbox, "ready_broken")
        try await claimOnSandbox(fixture.sandbox, "ready_broken")
        let bogus = "moltbook_sk_" + String(repeating: "x", count: 32)
        let added = try await fixture.home.run(
            ["keys", "add", "ready_broken", "--base-url", fixture.base], stdin: bogus, recorded: false)
        #expect(added.status == 0, "\(added.stderr)")
        let directory = fixture.home.path + "/recipes"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for agent in ["ready_good", "ready_broken"] { _ = try HealthTests.idleRecipe(fixture, agent, in: "recipes/") }
        try await fixture.setClock(RunFixture.t0)
        let daemon = try ChildProcess(
            "moltipass",
            [
                "run", directory, "--state", fixture.statePath, "--now", RunFixture.iso(RunFixture.t0),
                "--time-scale", "600", "--log-format", "json", "--listen", ":0",
            ],
            environment: fixture.home.environment, directory: fixture.home.directory.url)
        defer { if daemon.isRunning { daemon.send(SIGKILL) } }
        let port = try await Self.listenPort(daemon)

        var ready = try await RawHTTP.request("GET", "/readyz", port: port)
        let deadline = Date().addingTimeInterval(60)
        // The start-up check may name the key before the first pass ends ("starting: …" first).
        while !ready.body.hasPrefix("ready_broken: paused (key_refused"), Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
            ready = try await RawHTTP.request("GET", "/readyz", port: port)
        }
        #expect(ready.status == 503)
        #expect(ready.headers["content-type"] == "text/plain; charset=utf-8")
        #expect(ready.body.hasPrefix("ready_broken: paused (key_refused until "), "\(ready.body)")
        #expect(!ready.body.contains("ready_good") && !ready.body.contains(bogus) && !ready.body.contains(realKey))
        #expect(ready.body.filter { $0 == "\n" }.count == 1)
        #expect(try await RawHTTP.request("GET", "/healthz", port: port).status == 200)
        let health = try await fixture.home.run([
            "status", directory, "--state", fixture.statePath, "--health", "--json", "--now",
            RunFixture.iso(RunFixture.t0.addingTimeInterval(60)),
        ])
        let problems = (try JSONValue.parse(Data(health.stdout.utf8)))["problems"]?.array ?? []
        let said = problems.first { $0["agent"]?.string == "ready_broken" }
        let line = "ready_broken: " + (said?["message"]?.string ?? "?")
        #expect(ready.body.trimmingCharacters(in: .newlines) == line, "status --health: \(health.stdout)")
        let metrics = try await RawHTTP.request("GET", "/metrics", port: port)
        #expect(Self.value(metrics.body, "moltipass_agent_paused{agent=\"ready_broken\",kind=\"key_refused\"}") == 1)
        #expect(Self.value(metrics.body, "moltipass_agent_paused{agent=\"ready_good\",kind=\"key_refused\"}") == 0)

        let replaced = try await fixture.home.run(
            ["keys", "add", "ready_broken", "--base-url", fixture.base, "--replace"], stdin: realKey, recorded: false)
        #expect(replaced.status == 0, "\(replaced.stderr)")
        while ready.status != 200, Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
            ready = try await RawHTTP.request("GET", "/readyz", port: port)
        }
        #expect(ready.status == 200 && ready.body == "ok\n", "\(ready.body)")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: 30) == 0, "\(daemon.stderr)")
        #expect(!daemon.stdout.contains(realKey) && !daemon.stdout.contains(bogus))
    }

    /// `run --once --metrics-textfile`: the exposition written at the end of the run, 0644 for
    /// node_exporter, checked by promtool, no temp file left; rewritten by a run that exits
    /// non-zero (a dry queue, 7). A file that cannot be written fails a run that did not.
    @Test func onceWritesTheTextfile() async throws {
        let (fixture, recipe) = try await RunFixture.establishedPoster("textfile_poster")
        defer { Task { await fixture.stop() } }
        try fixture.queue(count: 2)  // the first item went at t0
        let path = fixture.home.path + "/textfile/moltipass.prom"
        try FileManager.default.createDirectory(
            atPath: fixture.home.path + "/textfile", withIntermediateDirectories: true)
        // Half a minute past the cooldown's end: the first post went when that run's pass began
        // (its --now plus its start-up), and this run's start-up may be the shorter.
        let at = RunFixture.t0.addingTimeInterval(1_830)
        let done = try await fixture.run([recipe, "--once", "--metrics-textfile", path], at: at, detailed: false)
        #expect(done.status == 0, "\(done.stderr)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try await Self.promtoolCheck(text)
        #expect(try KeysHome.mode(of: path) == 0o644)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: fixture.home.path + "/textfile") == ["moltipass.prom"])
        #expect(
            Self.value(text, "moltipass_actions_total{agent=\"textfile_poster\",action=\"post\",outcome=\"done\"}") == 1
        )
        // The pass's instant: the run's clock started at --now and went on for as long as it took.
        let tick = try #require(Self.value(text, "moltipass_last_tick_timestamp_seconds"))
        #expect(tick >= at.timeIntervalSince1970 && tick < at.timeIntervalSince1970 + 30, "\(tick)")
        #expect(Self.value(text, "moltipass_lease_held{agent=\"textfile_poster\"}") == 0, "released at the end")
        #expect(Self.value(text, "moltipass_pass_duration_seconds_count") == 1)
        #expect(!text.contains("moltbook_sk_"))

        let later = at.addingTimeInterval(1_800)
        let dry = try await fixture.run([recipe, "--once", "--metrics-textfile", path], at: later, detailed: false)
        #expect(dry.status == 7, "\(dry.stderr)")
        let again = try String(contentsOfFile: path, encoding: .utf8)
        let laterTick = try #require(Self.value(again, "moltipass_last_tick_timestamp_seconds"))
        #expect(laterTick >= later.timeIntervalSince1970 && laterTick < later.timeIntervalSince1970 + 30)
        #expect(
            Self.value(again, "moltipass_actions_total{agent=\"textfile_poster\",action=\"post\",outcome=\"done\"}")
                == nil)

        let nowhere = fixture.home.path + "/missing/moltipass.prom"
        let failed = try await fixture.run(
            [recipe, "--once", "--metrics-textfile", nowhere], at: later.addingTimeInterval(60), detailed: false)
        #expect(failed.status == 1, "nothing was due: only the file failed")
        #expect(
            failed.stderr.contains("moltipass: could not write the metrics text file \(nowhere): "), "\(failed.stderr)")
    }

    /// `--listen` is the daemon's, `--metrics-textfile` the cron run's; an address must be one.
    @Test(arguments: [
        (["--once", "--listen", "9464"], "--listen is for the daemon (run without --once)"),
        (["--metrics-textfile", "m.prom"], "--metrics-textfile is for run --once"),
        (["--listen", "example.com:9464"], "--listen example.com:9464: give HOST:PORT, :PORT or PORT"),
        (["--listen", "127.0.0.1:70000"], "--listen 127.0.0.1:70000: give HOST:PORT"),
    ])
    func usageErrors(_ arguments: [String], _ message: String) async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = home.path + "/r.yaml"
        try
            "agent: a\njobs:\n  - id: j\n    schedule: { every: 1d }\n    steps:\n      - post: { submolt: g, title: T, content: C }\n"
            .write(toFile: recipe, atomically: true, encoding: .utf8)
        let result = try await home.run(["run", recipe, "--state", home.path + "/state.sqlite"] + arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
