import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// Issue 19, observation 1: `status --health` said `healthy` with a key the server refuses, an
/// unclaimed agent, and a daemon whose keychain passphrase is wrong, so container health checks
/// never caught the two most common deployment mistakes. Through the binary: a daemon checks
/// every agent's key at start, and health names each problem.
@Suite("status --health tells the truth")
struct HealthTests {
    /// A recipe for `agent` whose one job is not due for weeks: whatever health finds, the
    /// daemon found at start, not when a job came due.
    static func idleRecipe(_ fixture: RunFixture, _ agent: String, in directory: String = "") throws -> String {
        try fixture.file(
            directory + agent + ".yaml",
            """
            agent: \(agent)
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: monthly
                schedule: { cron: "0 9 28 2 *" }
                steps:
                  - post: { submolt: general, title: "Note of {{ date: yyyy-MM-dd }}", content: "Monthly." }
            """)
    }

    /// Starts the daemon on `arguments` at `t0`, waits until `ready` holds of `status --health
    /// --json` (or 60 s), stops it, and returns the last health answer.
    static func daemonHealth(
        _ fixture: RunFixture, _ paths: [String], extra: [String: String] = [:], arguments: [String] = [],
        log logReady: (String) -> Bool = { _ in true }, until ready: (JSONValue) -> Bool
    ) async throws -> (health: JSONValue, status: Int32, log: String) {
        let at = RunFixture.t0
        try await fixture.setClock(at)
        var environment = fixture.home.environment
        for (name, value) in extra { environment[name] = value }
        let daemon = try ChildProcess(
            "moltipass",
            ["run"] + paths + ["--state", fixture.statePath, "--now", RunFixture.iso(at), "--log-format", "json"]
                + arguments,
            environment: environment, directory: fixture.home.directory.url)
        var last: (JSONValue, Int32) = (.null, -1)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            try await Task.sleep(for: .milliseconds(200))
            let health = try await fixture.home.run(
                ["status"] + paths + [
                    "--state", fixture.statePath, "--health", "--json", "--now",
                    RunFixture.iso(at.addingTimeInterval(30)),
                ], extra: extra)
            last = ((try? JSONValue.parse(Data(health.stdout.utf8))) ?? .null, health.status)
            if ready(last.0), logReady(daemon.stdout) { break }
        }
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit(timeout: 30) == 0, "\(daemon.stderr)")
        #expect(!daemon.stdout.contains("moltbook_sk_"))
        return (last.0, last.1, daemon.stdout)
    }

    static func problems(_ health: JSONValue) -> [(kind: String, agent: String?, message: String)] {
        (health["problems"]?.array ?? []).map {
            ($0["kind"]?.string ?? "", $0["agent"]?.string, $0["message"]?.string ?? "")
        }
    }

    /// A refused key and an unclaimed agent, with nothing due for weeks: the daemon's start-up
    /// read finds both; health is unhealthy and names each, and says nothing of the good agent.
    @Test(.enabled(if: TestDialect.current == .moltbookCom, "is_claimed as moltbook.com reports it"))
    func refusedKeyAndUnclaimedAgentAtStart() async throws {
        let fixture = try await RunFixture.start(sandboxArguments: ["--config", try RunCrashTests.config()])
        defer { Task { await fixture.stop() } }
        try await fixture.setClock(RunFixture.t0.addingTimeInterval(-2 * 86_400))
        try await fixture.agent("good_agent")
        let registered = try await fixture.home.run([
            "register", "unclaimed_agent", "--description", "health test", "--base-url", fixture.base,
        ])
        #expect(registered.status == 0, "\(registered.stderr)")
        let added = try await fixture.home.run(
            ["keys", "add", "refused_agent"], stdin: "moltbook_sk_" + String(repeating: "x", count: 32),
            recorded: false)
        #expect(added.status == 0, "\(added.stderr)")
        let directory = fixture.home.path + "/recipes"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for agent in ["good_agent", "unclaimed_agent", "refused_agent"] {
            _ = try Self.idleRecipe(fixture, agent, in: "recipes/")
        }
        let (health, status, _) = try await Self.daemonHealth(fixture, [directory]) { health in
            Set(Self.problems(health).compactMap(\.agent)) == ["unclaimed_agent", "refused_agent"]
        }
        #expect(status == 1)
        #expect(health["healthy"]?.bool == false)
        let found = Self.problems(health)
        #expect(
            found.contains { $0.kind == "paused" && $0.agent == "refused_agent" && $0.message.contains("key_refused") },
            "\(found)")
        #expect(
            found.contains {
                $0.kind == "unclaimed" && $0.agent == "unclaimed_agent" && $0.message.contains("moltipass claim")
            }, "\(found)")
        #expect(!found.contains { $0.agent == "good_agent" }, "\(found)")
        #expect(try await fixture.counter("posts_created") == 0)
    }

    /// A daemon whose keychain passphrase is wrong: it used to log an error every minute while
    /// health said healthy. Now the start-up check records it and health names it; the text
    /// form says the same on stderr.
    @Test func wrongPassphraseInTheDaemon() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("locked_out")
        let recipe = try Self.idleRecipe(fixture, "locked_out")
        let wrong = fixture.home.path + "/wrong-passphrase"
        try "not the passphrase\n".write(toFile: wrong, atomically: true, encoding: .utf8)
        chmod(wrong, 0o600)
        let (health, status, log) = try await Self.daemonHealth(
            fixture, [recipe], extra: ["MOLTIPASS_PASSPHRASE_FILE": wrong]
        ) { health in Self.problems(health).contains { $0.kind == "keychain" } }
        #expect(status == 1)
        let found = Self.problems(health)
        #expect(
            found.contains { $0.kind == "keychain" && $0.agent == "locked_out" && $0.message.contains("passphrase") },
            "\(found)")
        #expect(log.contains("cannot read the agent's key"), "\(log)")
    }

    /// One invalid file among the daemon's recipes used to stop it for every agent (exit 65,
    /// and Compose restarted it in a loop). It is skipped: the other agent posts, and health
    /// names the file with its position.
    @Test func invalidRecipeIsSkippedAndNamed() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("survivor")
        try fixture.queue(count: 2)
        let directory = fixture.home.path + "/recipes"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try fixture.file(
            "recipes/survivor.yaml",
            """
            agent: survivor
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: posts
                schedule: { every: 30m }
                steps:
                  - post: { submolt: general, queue: ../queue.yaml }
            """)
        try fixture.file("recipes/broken.yaml", "agent: survivor\njobs:\n  - id: j\n    schedule: { every: 30x }\n")
        let (health, status, _) = try await Self.daemonHealth(
            fixture, [directory], log: { $0.contains("\"outcome\":\"done\"") }
        ) { health in Self.problems(health).contains { $0.kind == "invalid_recipe" } }
        #expect(status == 1)
        let found = Self.problems(health)
        #expect(
            found.contains { $0.kind == "invalid_recipe" && $0.message.contains("recipes/broken.yaml:3:5: error") },
            "\(found)")
        #expect(try await fixture.titles(of: "survivor") == ["Item 0"])
    }

    /// A generator that keeps failing (issue 21) is a problem once it failed three times in a
    /// row: health names the job and the last reason; the daemon stays up.
    @Test func failingGeneratorIsUnhealthy() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("gen_health")
        let failing = Fixtures.directory.appendingPathComponent("generators/fail.sh").path
        let recipe = try fixture.file(
            "gen.yaml",
            """
            agent: gen_health
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: notes
                schedule: { every: 10m }
                steps:
                  - post: { submolt: general, generate: { command: [\(failing)] } }
            """)
        let (health, status, log) = try await Self.daemonHealth(
            fixture, [recipe], arguments: ["--time-scale", "600"]
        ) { health in Self.problems(health).contains { $0.kind == "generator_failing" } }
        #expect(status == 1)
        let problem = Self.problems(health).first { $0.kind == "generator_failing" }
        #expect(problem?.agent == "gen_health", "\(Self.problems(health))")
        #expect(problem?.message.contains("job gen/notes: the generator failed") == true, "\(problem?.message ?? "")")
        #expect(problem?.message.contains("exited with status 1: model unavailable") == true)
        #expect(log.contains("generation failed"))
        #expect(try await fixture.titles(of: "gen_health").isEmpty)
    }

    /// A queue with no item left is a problem an operator must solve: health names the job and
    /// the queue.
    @Test func dryQueueIsUnhealthy() async throws {
        let (fixture, recipe) = try await RunFixture.establishedPoster("dry_poster")
        defer { Task { await fixture.stop() } }
        try fixture.queue(count: 1)  // the one item is the one posted at t0
        let health = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--health", "--now", RunFixture.iso(RunFixture.t0),
        ])
        #expect(health.status == 1)
        #expect(
            health.stderr.contains("unhealthy: dry_poster: ")
                && health.stderr.contains("job `posts`: content queue queue.yaml has run dry"), "\(health.stderr)")
        // A cron run that comes to the dry queue says so: exit 7 and the summary, not a quiet 0.
        let cron = try await fixture.run(
            [recipe, "--once"], at: RunFixture.t0.addingTimeInterval(1_805), detailed: false)
        #expect(cron.status == 7, "\(cron.stderr)")
        #expect(cron.stderr.contains("queue empty: run/posts: queue.yaml"), "\(cron.stderr)")
        // More items: healthy again.
        try fixture.queue(count: 3)
        let fixed = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--health", "--now", RunFixture.iso(RunFixture.t0),
        ])
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(fixed.stdout == "healthy\n")
    }

    /// `env: [MOOD]` with MOOD unset rendered an empty string and posted "Mood: ". The recipe is
    /// refused before anything runs (the others run); exit 65 names the variable.
    @Test func unsetEnvironmentVariableRefusesTheRecipe() async throws {
        let (fixture, _) = try await RunFixture.establishedPoster("moody_poster")
        defer { Task { await fixture.stop() } }
        let recipe = try fixture.file(
            "mood.yaml",
            """
            agent: moody_poster
            time_zone: UTC
            base_url: \(fixture.base)
            env: [MOOD]
            jobs:
              - id: mood
                schedule: { every: 1h }
                steps:
                  - post: { submolt: general, title: "Mood: {{ env.MOOD }}", content: "How the harbour feels." }
            """)
        let before = try await fixture.counter("posts_created")
        let run = try await fixture.run([recipe, "--once"], at: RunFixture.t0.addingTimeInterval(3_605))
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("environment variable MOOD is not set"), "\(run.stderr)")
        #expect(try await fixture.counter("posts_created") == before)
        let set = try await fixture.run(
            [recipe, "--once"], at: RunFixture.t0.addingTimeInterval(2 * 3_605), extra: ["MOOD": "calm"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try await fixture.titles(of: "moody_poster").contains("Mood: calm"))
    }
}

/// A state directory mounted read-only (a private mount namespace; root only): the engine
/// could record nothing, and health says so.
@Suite("status --health: state that cannot be written")
struct ReadOnlyStateHealthTests {
    static let canMount: Bool = {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
    }()

    @Test(.enabled(if: canMount, "needs root and unshare for a read-only bind mount"))
    func readOnlyStateIsUnhealthy() async throws {
        let (fixture, recipe) = try await RunFixture.establishedPoster("read_only_poster")
        defer { Task { await fixture.stop() } }
        let state = try TemporaryDirectory(prefix: "moltipass-ro-state")
        defer { state.remove() }
        let path = state.path + "/state.sqlite"
        try FileManager.default.copyItem(atPath: fixture.statePath, toPath: path)
        let binary = ProcessRunner.executable("moltipass").path
        let environment = fixture.home.environment.map { "\($0.key)=\($0.value)" }
        let script =
            "mount --bind '\(state.path)' '\(state.path)' && mount -o remount,bind,ro '\(state.path)' && "
            + "exec '\(binary)' status '\(recipe)' --state '\(path)' --health --now \(RunFixture.iso(RunFixture.t0))"
        let result = try await ProcessRunner.runSystem(
            "/usr/bin/env", environment + ["/usr/bin/unshare", "-m", "/bin/sh", "-c", script])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(
            result.stderr.contains("unhealthy: the state file \(path) cannot be written here"), "\(result.stderr)")
        #expect(!result.stderr.contains("SQLite error"), "\(result.stderr)")
    }
}
