import Foundation
import MoltipassTesting
import Testing

/// The commands that only read the state (`status`, `status --health`, `plan`) work on a state
/// file whose file and directory cannot be written (a read-only mount, another user's state),
/// and say the same as on a writable copy; the commands that write it say so in plain words.
/// Through the real binary, run without write permission: as root, with every capability dropped
/// (`setpriv`), so the file modes bind as they do for any other user.
@Suite("read-only state")
struct ReadOnlyStateTests {
    /// `moltipass ARGS` (or `PROGRAM ARGS`) with `environment`, unable to write what its modes
    /// forbid: as root with no capabilities, otherwise as is.
    static func withoutPrivileges(
        _ arguments: [String], environment: [String: String], program: String? = nil
    ) async throws -> ProcessRunner.Result {
        let executable = program ?? ProcessRunner.executable("moltipass").path
        let assignments = environment.map { "\($0.key)=\($0.value)" }.sorted()
        let wrapper = getuid() == 0 ? ["/usr/bin/setpriv", "--bounding-set=-all", "--inh-caps=-all", "--"] : []
        return try await ProcessRunner.runSystem(
            "/usr/bin/env",
            ["-i", "PATH=/usr/bin:/bin", "LANG=C.UTF-8"] + assignments + wrapper + [executable] + arguments)
    }

    /// A state file after a real `run --once`, copied into a directory that is then made
    /// read-only (files 0400, directory 0500): `status`, `status --json` and `plan --json` exit
    /// and print exactly as on the writable original, and leave nothing next to the file (no
    /// `-shm`, `-wal`, lock file); `status --health` gives its verdict (a state the engine cannot
    /// write is a health problem of its own, said in words); `run --once`, `pause` and `resume`
    /// refuse with a plain message; no output carries SQLite's or Foundation's own error text.
    @Test func readersWorkOnReadOnlyState() async throws {
        let fixture = try await RunFixture.start()
        defer { Task { await fixture.stop() } }
        try await fixture.agent("readonly_poster")
        try fixture.queue(count: 3)
        let recipe = try fixture.postingRecipe("readonly_poster")
        let t0 = RunFixture.t0
        #expect(try await fixture.run([recipe, "--once"], at: t0).status == 0)

        let directory = fixture.home.path + "/mounted"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let readOnly = directory + "/state.sqlite"
        try FileManager.default.copyItem(atPath: fixture.statePath, toPath: readOnly)
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: readOnly)
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: directory)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory) }
        let before = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(before == ["state.sqlite"])

        // The set-up binds: this process cannot create a file in the directory.
        let touch = try await Self.withoutPrivileges(
            [directory + "/probe"], environment: [:], program: "/usr/bin/touch")
        #expect(touch.status != 0, "the directory is writable: the test would prove nothing")

        let now = RunFixture.iso(t0.addingTimeInterval(300))
        let commands: [[String]] = [
            ["status", recipe, "--now", now],
            ["status", recipe, "--json", "--now", now],
            ["plan", recipe, "--for", "2h", "--from", now, "--from-state", "--json", "--seed", "3"],
        ]
        let environment = fixture.home.environment
        for command in commands {
            let writable = try await Self.withoutPrivileges(
                command + ["--state", fixture.statePath], environment: environment)
            let readable = try await Self.withoutPrivileges(command + ["--state", readOnly], environment: environment)
            #expect(readable.status == writable.status, "\(command): \(readable.stderr)")
            #expect(readable.stdout == writable.stdout, "\(command)")
            #expect(readable.stderr == writable.stderr, "\(command)")
            #expect(!(readable.stdout + readable.stderr).contains("SQLite"), "\(command): \(readable.stderr)")
        }
        let health = try await Self.withoutPrivileges(
            ["status", recipe, "--health", "--now", now, "--state", readOnly], environment: environment)
        #expect([0, 1].contains(health.status), "\(health.stderr)")
        #expect(health.stdout == "healthy\n" || health.stderr.hasPrefix("unhealthy: "), "\(health.stderr)")
        #expect(!(health.stdout + health.stderr).contains("SQLite"), "\(health.stderr)")
        let status = try await Self.withoutPrivileges(
            ["status", recipe, "--now", now, "--state", readOnly], environment: environment)
        #expect(status.status == 0)
        #expect(status.stdout.contains("post.cooldown"), "\(status.stdout)")

        for command in [
            ["run", recipe, "--once", "--now", now], ["pause", "readonly_poster"], ["resume", "readonly_poster"],
        ] {
            let refused = try await Self.withoutPrivileges(command + ["--state", readOnly], environment: environment)
            #expect(refused.status == 1, "\(command): \(refused.stderr)")
            #expect(
                refused.stderr == "moltipass: the state file \(readOnly) cannot be written (the file, its directory "
                    + "or its file system is read-only for this user); run, pause and resume write it (status and "
                    + "plan only read): give --state a writable path or fix the permissions\n",
                "\(command)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == before)
    }
}
