import Foundation
import MoltipassTesting
import Testing

/// Every error path a person meets says what went wrong in plain words: through the real
/// binary, many failures (missing and unreadable files, a state file that is a directory, not a
/// database or read-only, keychain problems, bad flags and recipes, an unreachable server) each
/// exit with their code and a message, and no output carries a raw Foundation or SQLite error
/// (`NSCocoaErrorDomain`, `Error Domain=`, `NSPOSIXErrorDomain`, `SQLite error`).
@Suite("clear errors")
struct ClearErrorTests {
    static let forbidden = ["NSCocoaErrorDomain", "NSPOSIXErrorDomain", "Error Domain=", "SQLite error", "NSError"]
    static let unreachable = "http://127.0.0.1:1/api/v1"

    /// Each case exits with its status, prints a message on stderr, and leaks no raw error text.
    @Test func everyErrorPathSpeaksPlainly() async throws {
        let home = try KeysHome()
        defer { home.remove() }
        try await home.initKeychain()
        let added = try await home.run(
            ["keys", "add", "dead_agent", "--base-url", Self.unreachable],
            stdin: "moltbook_sk_" + String(repeating: "7", count: 32))
        #expect(added.status == 0, "\(added.stderr)")

        let path = home.path
        let recipe = path + "/dead.yaml"
        try """
        agent: dead_agent
        time_zone: UTC
        base_url: \(Self.unreachable)
        jobs:
          - id: hello
            schedule: { every: 30m }
            steps:
              - post: { submolt: general, title: "Hello", content: "Nobody is listening." }
        """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let file = path + "/a-file"
        try "not a directory".write(toFile: file, atomically: true, encoding: .utf8)
        let notDatabase = path + "/not-a-database.sqlite"
        try String(repeating: "not a database at all. ", count: 40).write(
            toFile: notDatabase, atomically: true, encoding: .utf8)
        let directory = path + "/a-directory"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let garbage = path + "/garbage-keychain"
        try KeysHome.writeSecret("MOLTIPASS? no, just text\n", to: garbage)
        let wrongPassphrase = path + "/wrong-passphrase"
        try KeysHome.writeSecret("not the passphrase\n", to: wrongPassphrase)
        let state = path + "/state.sqlite"
        let now = RunFixture.iso(RunFixture.t0)

        let cases: [(arguments: [String], extra: [String: String], status: Int32)] = [
            ([], [:], 64),
            (["validate", path + "/missing.yaml"], [:], 65),
            (["validate", directory], [:], 65),
            (["run", path + "/missing.yaml", "--once"], [:], 65),
            (["status", path + "/missing.yaml"], [:], 65),
            (["plan", path + "/missing.yaml"], [:], 65),
            (["lint", recipe, "--horizon", "soon"], [:], 64),
            (["run", recipe, "--bogus"], [:], 64),
            (["run", recipe, "--once", "--log-level", "loud"], [:], 64),
            (["run", recipe, "--once", "--max-wait", "a while"], [:], 64),
            (["plan", recipe, "--html", path + "/missing/plan.html"], [:], 64),
            (["status", recipe], ["HOME": "", "XDG_STATE_HOME": ""], 64),
            (["keys", "add", "bad name!"], [:], 64),
            (["keys", "export", "dead_agent"], [:], 64),
            (["run", recipe, "--once", "--state", file + "/state.sqlite"], [:], 1),
            (["status", recipe, "--state", file + "/state.sqlite"], [:], 1),
            (["pause", "dead_agent", "--state", file + "/state.sqlite"], [:], 1),
            (["status", recipe, "--state", directory], [:], 1),
            (["run", recipe, "--once", "--state", directory], [:], 1),
            (["status", recipe, "--state", notDatabase], [:], 1),
            (["run", recipe, "--once", "--state", notDatabase], [:], 1),
            (["plan", recipe, "--state", notDatabase, "--from-state", "--for", "1h"], [:], 1),
            (["keys", "list"], ["MOLTIPASS_PASSPHRASE_FILE": wrongPassphrase], 12),
            (["keys", "list"], ["MOLTIPASS_PASSPHRASE_FILE": path + "/missing-passphrase"], 12),
            (["keys", "list", "--keychain", directory], [:], 12),
            (["keys", "list", "--keychain", garbage], [:], 12),
            (["keys", "list", "--keychain", path + "/missing-keychain"], [:], 12),
            (["keys", "init", "--keychain", file + "/keychain"], [:], 12),
            (["keys", "init", "--scrypt-log2n", "10"], [:], 14),
            (
                ["run", recipe, "--once", "--state", state, "--now", now],
                ["MOLTIPASS_PASSPHRASE_FILE": wrongPassphrase], 12
            ),
            (["keys", "verify", "dead_agent"], [:], 75),
            (["claim", "dead_agent"], [:], 75),
            (["register", "new_agent", "--description", "x", "--base-url", Self.unreachable], [:], 75),
            (["run", recipe, "--once", "--state", state, "--now", now], [:], 75),
            (["check", path + "/missing.yaml"], [:], 65),
            (["check", recipe, "--state", state], ["MOLTIPASS_PASSPHRASE_FILE": wrongPassphrase], 12),
            (["check", recipe, "--state", state], [:], 75),
            (["pending", "--state", notDatabase], [:], 1),
            (["pending", "--state", file + "/state.sqlite"], [:], 1),
            (["history", "dead_agent", "--state", directory], [:], 1),
            (["history", "dead_agent", "--since", "whenever"], [:], 64),
            (["cancel", "abcdef12", "--state", notDatabase], [:], 1),
        ]
        for (arguments, extra, status) in cases {
            let result = try await home.run(arguments, extra: extra)
            let output = result.stdout + result.stderr
            #expect(result.status == status, "\(arguments): \(output)")
            #expect(!result.stderr.isEmpty, "\(arguments): no message")
            for text in Self.forbidden { #expect(!output.contains(text), "\(arguments): \(output)") }
        }

        // What only file modes can cause: a state directory this user may not enter, and a
        // read-only one for a command that writes.
        let locked = path + "/locked"
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: state, toPath: locked + "/state.sqlite")
        let readOnly = path + "/read-only"
        try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: state, toPath: readOnly + "/state.sqlite")
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked)
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: readOnly)
        defer {
            for restored in [locked, readOnly] {
                try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: restored)
            }
        }
        let modeCases: [([String], String)] = [
            (["status", recipe, "--state", locked + "/state.sqlite"], "Permission denied"),
            (
                ["plan", recipe, "--state", locked + "/state.sqlite", "--from-state", "--for", "1h"],
                "Permission denied"
            ),
            (["run", recipe, "--once", "--state", locked + "/state.sqlite"], "Permission denied"),
            (["run", recipe, "--once", "--state", readOnly + "/state.sqlite"], "cannot be written"),
            (["resume", "dead_agent", "--state", readOnly + "/state.sqlite"], "cannot be written"),
        ]
        for (arguments, words) in modeCases {
            let result = try await ReadOnlyStateTests.withoutPrivileges(arguments, environment: home.environment)
            let output = result.stdout + result.stderr
            #expect(result.status == 1, "\(arguments): \(output)")
            #expect(result.stderr.contains(words), "\(arguments): \(output)")
            for text in Self.forbidden { #expect(!output.contains(text), "\(arguments): \(output)") }
        }
        home.expectNoLeak(of: [])
    }
}
