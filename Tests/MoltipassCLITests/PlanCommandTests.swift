import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassTesting
import Testing

/// `moltipass plan` through the real binary.
@Suite("moltipass plan")
struct PlanCommandTests {
    static let from = "2026-03-02T00:00:00Z"

    /// The bytes of every file in `directory` but SQLite's shared-memory index (-shm).
    static func hashes(_ directory: TemporaryDirectory) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where !name.hasSuffix("-shm") {
            result[name] = try Data(contentsOf: directory.file(name))
        }
        return result
    }

    /// Every file that existed is byte-identical. Known gap (Storage): the read-only snapshot of a
    /// WAL database with no `-wal` file leaves an empty `-wal` behind (SQLite creates it on open).
    static func expectUnchanged(_ directory: TemporaryDirectory, _ before: [String: Data]) throws {
        let after = try hashes(directory)
        for (name, data) in before { #expect(after[name] == data, "\(name) changed") }
        for (name, data) in after where before[name] == nil {
            #expect(name.hasSuffix("-wal") && data.isEmpty, "new file \(name)")
        }
    }

    /// A post that says the same every hour: over 7 days `plan` shows one post sent and every
    /// other run skipped by the duplicate guard, with the reason (the same engine as `run`).
    @Test func planShowsTheDuplicateGuard() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = home.directory.file("reminder.yaml")
        try """
        agent: reminder_bot
        jobs:
          - id: remind
            schedule: { every: 1h }
            steps:
              - post: { submolt: general, title: Hourly reminder, content: "Drink water!" }
        """.write(to: recipe, atomically: true, encoding: .utf8)
        let plan = try await home.run(["plan", recipe.path, "--for", "7d", "--from", Self.from, "--json"])
        #expect(plan.status == 0, "\(plan.stderr)")
        let events = try JSONValue.parse(Data(plan.stdout.utf8))["events"]?.array ?? []
        #expect(events.filter { $0["outcome"]?.string == "done" }.count == 1)
        let guarded = events.filter { ($0["reason"]?.string ?? "").hasPrefix("duplicate content") }
        #expect(guarded.count == 7 * 24 - 1)
        #expect(guarded.allSatisfy { $0["outcome"]?.string == "skipped" })
    }

    /// With the simulated server refusing repeated content and suspending for it, a month of
    /// the example recipes and of five benchmark recipes draws no refusal and no suspension.
    @Test(
        .enabled(if: TestDialect.current == .moltbookCom, "plan simulates moltbook.com whatever the matrix's dialect"))
    func aMonthWithoutRepeats() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let bench = try TemporaryDirectory(prefix: "moltipass-bench-recipes")
        defer { bench.remove() }
        let generated = try await ProcessRunner.runSystem(
            "/usr/bin/python3", [Fixtures.packageRoot.appendingPathComponent("bench/gen-recipes.py").path, bench.path])
        #expect(generated.status == 0, "\(generated.stderr)")
        // Five of the benchmark's recipes, two pairs of them for one agent each (the generator gives
        // agent N the recipes rN and r(N+50), with the same job ids): the layout `plan` once refused.
        let benchRecipes = ["r000", "r050", "r001", "r051", "r002"].map { bench.path + "/\($0).yaml" }
        let root = Fixtures.packageRoot.appendingPathComponent("recipes").path
        let examples = ["daily-digest.yaml", "setup.yaml", "welcome-comments.yaml", "hourly-upvotes.yaml"]
            .map { root + "/" + $0 }
        for recipes in [examples, Array(benchRecipes)] {
            let plan = try await home.run(
                ["plan"] + recipes + [
                    "--for", "30d", "--from", "2026-12-01T00:00:00Z", "--enforce-duplicates", "--json",
                ], timeout: 600)
            #expect(plan.status == 0, "\(plan.stderr)")
            let server = try JSONValue.parse(Data(plan.stdout.utf8))["server"]
            #expect(server?["duplicate_refusals"]?.int == 0, "\(String(describing: server))")
            #expect(server?["suspensions"]?.int == 0, "\(String(describing: server))")
        }
    }

    /// A recipe whose base_url is an unreachable loopback port still plans (no socket is opened),
    /// a real state file keeps its hash, and the same seed prints the same JSON twice.
    @Test func sideEffectFreeAndRepeatable() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let recipe = home.directory.file("plan.yaml")
        try """
        agent: plan_bot
        base_url: http://127.0.0.1:9/api/v1
        jobs:
          - id: hourly
            schedule: { every: 1h }
            steps:
              - post: { submolt: general, title: "Hourly {{ date: HH:mm }}", content: "Body" }
        """.write(to: recipe, atomically: true, encoding: .utf8)
        let stateDirectory = try TemporaryDirectory(prefix: "moltipass-plan-cli")
        defer { stateDirectory.remove() }
        let state = stateDirectory.file("state.sqlite").path
        // A real state file, written by a real run that fails to reach the port (the intent is journaled).
        _ = try await home.run(["run", recipe.path, "--once", "--state", state, "--now", Self.from])
        let before = try Self.hashes(stateDirectory)
        #expect(before["state.sqlite"] != nil)

        let args = ["plan", recipe.path, "--for", "1d", "--from", Self.from, "--state", state, "--seed", "3"]
        let first = try await home.run(args + ["--json"])
        #expect(first.status == 0, "plan: \(first.stderr)")
        let second = try await home.run(args + ["--json"])
        #expect(first.stdout == second.stdout)
        let parsed = try JSONValue.parse(Data(first.stdout.utf8))
        #expect(parsed["schema_version"]?.int == 1)
        #expect(parsed["scenario"]?["state_copied"]?.bool == true)
        let done = parsed["events"]?.array?.filter { $0["outcome"]?.string == "done" && $0["action"]?.string == "post" }
        #expect((done?.count ?? 0) >= 23)
        try Self.expectUnchanged(stateDirectory, before)

        let html = home.directory.file("plan.html").path
        let table = try await home.run(args + ["--html", html])
        #expect(table.status == 0)
        #expect(table.stdout.contains("plan_bot  post"))
        #expect(!table.stdout.contains("\u{1B}["), "no colour when stdout is not a terminal")
        #expect(FileManager.default.fileExists(atPath: html))
        let explain = try await home.run(args + ["--explain", "hourly"])
        #expect(explain.status == 0)
        #expect(
            explain.stdout.contains("/hourly: occurrence 2026-03-02 00:00:00 +00:00 → post m/general \"Hourly 00:00\""))
        try Self.expectUnchanged(stateDirectory, before)

        let bad = try await home.run(["plan", recipe.path, "--for", "soon"])
        #expect(bad.status == 64)
    }

    /// `plan --from T` and a real `run --once --now T` against a sandbox process agree on what is
    /// due at T (the engine's own item descriptions).
    @Test func planAndRunOnceAgree() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        let sandbox = try await SandboxProcess.start()
        try await home.initKeychain()
        let registered = try await home.run([
            "register", "agree_bot", "--description", "plan test", "--base-url", sandbox.baseURL.absoluteString,
        ])
        #expect(registered.status == 0, "register: \(registered.stderr)")
        try await claimOnSandbox(sandbox, "agree_bot")
        let recipe = home.directory.file("agree.yaml")
        try """
        agent: agree_bot
        base_url: \(sandbox.baseURL.absoluteString)
        jobs:
          - id: hourly
            schedule:
              every: 1h
              missed: { run_once_within: 1h }
            steps:
              - post: { submolt: general, title: "Agree {{ date: HH:mm }}", content: "Body" }
              - subscribe: [general, agents]
        """.write(to: recipe, atomically: true, encoding: .utf8)
        let state = home.directory.file("state.sqlite").path
        let now = ISO8601DateFormatter().string(from: Date())

        let plan = try await home.run(["plan", recipe.path, "--for", "1m", "--from", now, "--state", state, "--json"])
        #expect(plan.status == 0, "plan: \(plan.stderr)")
        let planned = try JSONValue.parse(Data(plan.stdout.utf8))["events"]?.array ?? []
        let planDue = Set(planned.filter { $0["time"]?.string == now }.compactMap { $0["summary"]?.string })

        let run = try await home.run(["run", recipe.path, "--once", "--state", state, "--now", now, "--json"])
        #expect(run.status == 0, "run: \(run.stderr)")
        let items = try JSONValue.parse(Data(run.stdout.utf8))["items"]?.array ?? []
        let runDue = Set(items.compactMap { $0["action"]?.string })
        #expect(!planDue.isEmpty)
        #expect(planDue == runDue)
    }
}
