import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// Issue 34, observation 1: a program's stderr went unredacted into `run --json`'s reasons, the JSON log line,
/// `generate --json` and (for a solver program) the state's `pauses.reason`. Through the binary, with programs
/// that print the agent's own key and a model provider's key: neither reaches any output stream or any row of
/// the state file.
@Suite("The one redaction boundary: programs that print keys")
struct SecretRedactionTests {
    /// A model provider's key, shaped like the hosted providers' (`sk-…`).
    static let modelKey = "sk-proj-" + String(repeating: "Q7", count: 16)

    /// A program that reads its input, prints `key` and the model key on stderr and exits 1.
    static func leakyProgram(_ fixture: RunFixture, _ name: String, key: String) throws -> String {
        let path = try fixture.file(
            name, "#!/bin/sh\ncat >/dev/null\necho \"boom: key=\(key) model=\(modelKey)\" >&2\nexit 1\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    /// A claimed agent whose key the test knows (in the keychain with the sandbox's base URL).
    static func agent(_ fixture: RunFixture, _ name: String) async throws -> String {
        let key = try await registerOnSandbox(fixture.sandbox, name)
        try await claimOnSandbox(fixture.sandbox, name)
        let added = try await fixture.home.run(["keys", "add", name, "--base-url", fixture.base], stdin: key)
        #expect(added.status == 0, "\(added.stderr)")
        try await fixture.admin(.post, "agents/\(name)/age", .object(["age_seconds": .number(3 * 86_400)]))
        return key
    }

    /// Fails the test when `key` or the model key is anywhere in `texts` or in a dump of the state file.
    static func expectNowhere(_ key: String, in texts: [String: String], state: String) async throws {
        let dump = try await ProcessRunner.runSystem("/usr/bin/sqlite3", [state, ".dump"])
        #expect(dump.status == 0, "\(dump.stderr)")
        for (what, text) in texts.merging(["the state file": dump.stdout]) { $1 } {
            #expect(!text.contains(key), "the agent's key is in \(what)")
            #expect(!text.contains(modelKey), "the model key is in \(what)")
            #expect(!text.contains("moltbook_sk_"), "a key-shaped string is in \(what)")
        }
    }

    @Test func aFailingGeneratorsStderr() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        let key = try await Self.agent(fixture, "leaky_writer")
        let program = try Self.leakyProgram(fixture, "leaky.sh", key: key)
        let recipe = try fixture.file(
            "leaky.yaml",
            """
            agent: leaky_writer
            time_zone: UTC
            base_url: \(fixture.base)
            jobs:
              - id: notes
                schedule: { every: 30m }
                steps:
                  - post: { submolt: general, generate: { command: [\(program)] } }
            """)
        let run = try await fixture.run([recipe, "--once", "--json", "--log-format", "json"], at: RunFixture.t0)
        let reasons = (try JSONValue.parse(Data(run.stdout.utf8))["items"]?.array ?? []).compactMap {
            $0["reason"]?.string
        }
        // The reason still says what happened, with the secrets replaced: the agent's key by its bytes (this
        // process holds it), the model key by its shape.
        #expect(
            reasons.contains { $0.contains("exited with status 1: boom: key=[redacted] model=sk-[redacted]") },
            "\(run.stdout)")
        let generated = try await fixture.home.run([
            "generate", recipe, "--step", "notes/1", "--json", "--now", RunFixture.iso(RunFixture.t0),
        ])
        #expect(generated.status == 17, "\(generated.stderr)")
        #expect(generated.stdout.contains("exited with status 1: boom: key="), "\(generated.stdout)")
        try await Self.expectNowhere(
            key,
            in: [
                "run's stdout": run.stdout, "run's stderr (the JSON log)": run.stderr,
                "generate's stdout": generated.stdout, "generate's stderr": generated.stderr,
            ], state: fixture.statePath)
    }

    @Test func aFailingSolverProgramsStderr() async throws {
        let fixture = try await RunFixture.start(dialect: TestDialect.issuingChallenges)
        defer { Task { await fixture.stop() } }
        let key = try await Self.agent(fixture, "leaky_solver")
        let program = try Self.leakyProgram(fixture, "solver.sh", key: key)
        try fixture.queue(count: 2)
        let recipe = try fixture.file(
            "solver.yaml",
            """
            agent: leaky_solver
            time_zone: UTC
            base_url: \(fixture.base)
            challenge:
              solver: { command: \(program) }
            jobs:
              - id: posts
                schedule: { every: 30m }
                steps:
                  - post: { submolt: general, queue: queue.yaml }
            """)
        try await fixture.admin(.post, "config", .object(["challenge_rate": .number(1)]))
        let run = try await fixture.run([recipe, "--once", "--json", "--log-format", "json"], at: RunFixture.t0)
        #expect(try await fixture.counter("challenges_issued") == 1, "\(run.stderr)")
        #expect(run.stdout.contains("exited with status 1: boom: key=[redacted]"), "\(run.stdout)")
        let reason = try await fixture.sqlite("SELECT reason FROM pauses;")
        #expect(reason.contains("exited with status 1"), "the pause says why: \(reason)")
        let status = try await fixture.home.run([
            "status", recipe, "--state", fixture.statePath, "--json", "--now", RunFixture.iso(RunFixture.t0),
        ])
        try await Self.expectNowhere(
            key,
            in: [
                "run's stdout": run.stdout, "run's stderr (the JSON log)": run.stderr, "status": status.stdout,
            ], state: fixture.statePath)
    }
}
