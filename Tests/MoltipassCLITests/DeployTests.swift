import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// The deployment snippets under deploy/ and what the container image relies on.
@Suite("deploy")
struct DeployTests {
    /// `scripts/check-deploy --no-install` passes: every snippet under deploy/ is checked
    /// (systemd-analyze verify, crontab fields, docker run lines, compose and Kubernetes keys, the
    /// Dockerfile's paths everywhere), and the documented health checks and the Kubernetes init
    /// container are run with this build's binaries against moltbook-sandbox: healthy when all is
    /// well; unhealthy, not ready and still live with a wrong passphrase or a refused key, the
    /// reason named; a volume's keychain kept across restarts (issue 19, observation 9). Needs
    /// python3 with PyYAML, as on the project's machines.
    @Test(.pinsItsDialect) func everySnippetPassesCheckDeploy() async throws {
        let yaml = try await ProcessRunner.runSystem("/usr/bin/env", ["python3", "-c", "import yaml"])
        try #require(yaml.status == 0, "python3 with PyYAML is needed by scripts/check-deploy")
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/check-deploy").path
        let result = try await ProcessRunner.runSystem(
            "/usr/bin/env",
            ["MOLTIPASS_BIN_DIR=\(ProcessRunner.productsDirectory.path)", "bash", script, "--no-install"],
            // Its fleet part starts PostgreSQL and three daemons: minutes on a loaded CI machine.
            timeout: 900)
        #expect(result.status == 0, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
        #expect(result.stdout.contains("check-deploy: all deploy snippets passed"))
        for part in [
            "cron: 1 job line(s)", "systemd: timer Persistent=true", "docker run: every subcommand",
            "compose: image, command", "kubernetes: CronJob (Forbid, PVC, Secret)",
            "ok: a good setup: HEALTHCHECK, Compose healthcheck and readiness say healthy",
            "ok: no tick for 20 minutes: not ready, still live; for 40 minutes: liveness fails",
            "ok: a wrong passphrase in the daemon's environment: unhealthy and not ready",
            "unhealthy: good_agent: cannot read the key: cannot open keychain: wrong passphrase",
            "ok: a key the server refuses: unhealthy and not ready, naming that agent alone",
            "unhealthy: broken_agent: paused (key_refused",
            "ok: kubernetes init container: the first start seeds the keychain from the Secret",
        ] {
            #expect(result.stdout.contains(part), "missing: \(part)")
        }
        #expect(!result.stdout.contains("moltbook_sk_") && !result.stderr.contains("moltbook_sk_"))
    }

    /// `run DIR` (the image's `run /recipes`) loads every `*.yaml` directly in DIR, not its
    /// queues/ subfolder nor hidden entries; `status --health DIR` reads the same recipes; an
    /// empty directory is an invalid recipe (65), not an idle daemon.
    @Test func runAndStatusTakeARecipeDirectory() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("dir_poster")
        let directory = fixture.home.path + "/recipes"
        try FileManager.default.createDirectory(atPath: directory + "/queues", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/..data", withIntermediateDirectories: true)
        try "- title: \"From a directory\"\n  content: \"Loaded by run DIR.\"\n".write(
            toFile: directory + "/queues/posts.yaml", atomically: true, encoding: .utf8)
        try "not: [a recipe\n".write(toFile: directory + "/..data/broken.yaml", atomically: true, encoding: .utf8)
        try "notes, not YAML".write(toFile: directory + "/README.txt", atomically: true, encoding: .utf8)
        for (name, job, step) in [
            ("a.yaml", "posts", "post: { submolt: general, queue: queues/posts.yaml }"),
            ("b.yml", "join", "subscribe: [general]"),
        ] {
            try """
            agent: dir_poster
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: \(job)
                schedule: { every: 30m }
                steps:
                  - \(step)
            """.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }

        let once = try await fixture.run([directory, "--once", "--json"], at: RunFixture.t0)
        #expect(once.status == 0, "\(once.stderr)")
        let items = try JSONValue.parse(Data(once.stdout.utf8))["items"]?.array ?? []
        #expect(Set(items.compactMap { $0["recipe"]?.string }) == ["a", "b"])
        #expect(items.allSatisfy { $0["outcome"]?.string == "done" })
        #expect(try await fixture.titles(of: "dir_poster") == ["From a directory"])

        let status = try await fixture.home.run(
            ["status", directory, "--state", fixture.statePath, "--json", "--now", RunFixture.iso(RunFixture.t0)])
        #expect(status.status == 0, "\(status.stderr)")
        let agents = try JSONValue.parse(Data(status.stdout.utf8))["agents"]?.array ?? []
        #expect(agents.compactMap { $0["agent"]?.string } == ["dir_poster"])

        let empty = fixture.home.path + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let none = try await fixture.run([empty, "--once"], at: RunFixture.t0)
        #expect(none.status == 65, "\(none.stderr)")
        #expect(none.stderr.contains(empty))
    }
}
