import Foundation
import Generation
import MoltipassTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The command generator against real programs: the scripts in fixtures/generators.
@Suite("Command generator")
struct CommandGeneratorTests {
    static func script(_ name: String) -> String {
        Fixtures.directory.appendingPathComponent("generators/\(name)").path
    }

    static func generator(
        _ name: String, _ arguments: [String] = [], environment: [String: String] = [:], timeout: TimeInterval = 5,
        maxOutput: Int = CommandGenerator.defaultMaxOutput, killGrace: TimeInterval = 0.5
    ) -> CommandGenerator {
        CommandGenerator(
            command: [script(name)] + arguments, environment: environment, timeout: timeout, maxOutput: maxOutput,
            home: "/home/agent", killGrace: killGrace)
    }

    static let context = Data(#"{"schema": 1, "topic": "tide tables", "action": "comment"}"#.utf8)

    /// A text generator gets the context on stdin; its trailing newline is dropped.
    @Test func textFromTheContext() async {
        let outcome = await Self.generator("echo-topic.sh").run(context: Self.context)
        #expect(outcome == .text(GeneratedText(content: "Thoughts on tide tables.")))
    }

    /// A post generator's JSON becomes a title and a content (the escaped newline kept inside the content).
    @Test func postFromJSON() async {
        let outcome = await Self.generator("post-json.sh").run(context: Self.context)
        #expect(
            outcome == .text(GeneratedText(title: "Harbor report", content: "Calm water, three boats in.\nAll well.")))
    }

    /// A context larger than a pipe's buffer reaches the program whole; one that the program never reads neither
    /// blocks nor kills the runner (EPIPE, not SIGPIPE).
    @Test func largeContext() async {
        let padding = String(repeating: "x", count: 300_000)
        let large = Data(#"{"padding": "\#(padding)", "topic": "the far end"}"#.utf8)
        #expect(
            await Self.generator("echo-topic.sh").run(context: large)
                == .text(GeneratedText(content: "Thoughts on the far end.")))
        let unread = await Self.generator("silent.sh").run(context: large)
        #expect(unread == .failed(reason: "generator \(Self.script("silent.sh")) printed nothing", retryLater: true))
    }

    /// Exit code 3 skips the occurrence with stderr's first line as the reason.
    @Test func exitThreeSkips() async {
        let outcome = await Self.generator("skip.sh").run(context: Self.context)
        #expect(outcome == .skip(reason: "nothing worth saying today"))
    }

    /// Exit code 1 fails, retried later, naming the program, its status and stderr's first line.
    @Test func exitOneFails() async {
        let outcome = await Self.generator("fail.sh").run(context: Self.context)
        let path = Self.script("fail.sh")
        #expect(
            outcome == .failed(reason: "generator \(path) exited with status 1: model unavailable", retryLater: true))
    }

    /// At the timeout the whole process group dies, the grandchild too.
    @Test func timeoutKillsTheGroup() async throws {
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("gen-\(UUID().uuidString).pid")
        defer { try? FileManager.default.removeItem(at: pidFile) }
        let outcome = await Self.generator("hang.sh", [pidFile.path], timeout: 2).run(context: Self.context)
        #expect(
            outcome
                == .failed(
                    reason: "generator \(Self.script("hang.sh")) did not finish within 2 s and was killed",
                    retryLater: true))
        // No bound on the wall time: under a loaded test run the task resumes late (a CI run took
        // 25 s); the reason and the dead grandchild are the proof.
        let grandchild = try #require(pid_t(String(decoding: Data(contentsOf: pidFile), as: UTF8.self).trimmed))
        #expect(await Self.isGone(grandchild))
    }

    /// A program that ignores SIGTERM is killed with SIGKILL after the grace period.
    @Test func sigtermIgnoredThenKilled() async throws {
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("gen-\(UUID().uuidString).pid")
        defer { try? FileManager.default.removeItem(at: pidFile) }
        let started = ContinuousClock.now
        let outcome = await Self.generator("hang-ignoring-term.sh", [pidFile.path], timeout: 2, killGrace: 0.3)
            .run(context: Self.context)
        let elapsed = ContinuousClock.now - started
        guard case .failed(let reason, true) = outcome else {
            Issue.record("expected a timeout failure, got \(outcome)")
            return
        }
        #expect(reason.hasSuffix("did not finish within 2 s and was killed"))
        // At least the timeout and the grace (SIGTERM was ignored; the 2 s timeout leaves the shell time
        // to set its trap even on a loaded machine); no upper bound (a loaded run resumes late).
        #expect(elapsed >= .milliseconds(2_250))
        let program = try #require(pid_t(String(decoding: Data(contentsOf: pidFile), as: UTF8.self).trimmed))
        #expect(await Self.isGone(program))
    }

    /// 10 MB of output: reading stops at the limit and the program is killed.
    @Test func oversizedOutputStops() async {
        let outcome = await Self.generator("flood.sh", maxOutput: 4096).run(context: Self.context)
        #expect(
            outcome
                == .failed(
                    reason: "generator \(Self.script("flood.sh")) printed more than 4096 bytes and was stopped",
                    retryLater: true))
    }

    /// No output, output that is not UTF-8, and broken JSON are failures with their reasons.
    @Test(arguments: [
        ("silent.sh", "printed nothing"),
        ("invalid-utf8.sh", "printed text that is not valid UTF-8"),
        ("bad-json.sh", #"printed JSON that is not an object {"title": …, "content": …} of strings"#),
    ])
    func badOutputFails(name: String, what: String) async {
        let outcome = await Self.generator(name).run(context: Self.context)
        #expect(outcome == .failed(reason: "generator \(Self.script(name)) \(what)", retryLater: true))
    }

    /// The program sees only PATH, LANG, HOME and the caller's variables; never the parent's environment (every
    /// other variable of this test process is absent).
    ///
    /// The test reads the environment it was started with and never changes it: `setenv` while other tests
    /// start processes races with whatever reads `environ` meanwhile (the test support passes its own environment
    /// to system programs).
    @Test func cleanEnvironment() async throws {
        let parentOnly = ProcessInfo.processInfo.environment.keys.filter {
            !["PATH", "LANG", "HOME", "PWD", "STYLE"].contains($0)
        }
        #expect(!parentOnly.isEmpty, "the test process has variables of its own to leak")
        let outcome = await Self.generator(
            "dump-env.sh", environment: ["STYLE": "short", "PATH": "/tmp/evil", "HOME": "/tmp/evil"]
        ).run(context: Self.context)
        guard case .text(let text) = outcome else {
            Issue.record("expected the environment, got \(outcome)")
            return
        }
        var variables: [String: String] = [:]
        for line in text.content.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            variables[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        // PWD is the shell's own (sh exports it).
        variables["PWD"] = nil
        // The one variable Moltipass adds: the tag that finds the program's descendants (`Descendants`).
        let tag = variables.removeValue(forKey: "SPAWNED_BY_MOLTIPASS")
        #expect(tag?.hasPrefix(String(getpid()) + ".") == true, "\(String(describing: tag))")
        #expect(
            variables == [
                "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/home/agent", "STYLE": "short",
            ])
        for name in parentOnly { #expect(!text.content.contains("\(name)=")) }
    }

    /// A program that is not an executable file is a clear failure, not retried (only the operator can fix it).
    @Test func notExecutable() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gen-\(UUID().uuidString).sh")
        try Data("#!/bin/sh\necho hi\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        for path in [file.path, "/nonexistent/generator", FileManager.default.temporaryDirectory.path] {
            let outcome = await CommandGenerator(command: [path]).run(context: Self.context)
            #expect(outcome == .failed(reason: "generator \(path) is not an executable file", retryLater: false))
        }
    }

    /// A script written and started at once (the "text file busy" race) still runs.
    @Test func freshlyWrittenScriptRuns() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for index in 0..<5 {
            let file = directory.appendingPathComponent("g\(index).sh")
            try Data("#!/bin/sh\necho run \(index)\n".utf8).write(to: file)
            chmod(file.path, 0o755)
            let outcome = await CommandGenerator(command: [file.path]).run(context: Self.context)
            #expect(outcome == .text(GeneratedText(content: "run \(index)")))
        }
    }

    /// Whether a process is gone (or a zombie waiting for a reaper), polling for up to a second.
    /// Whether `pid` is gone (or a zombie), waiting up to 10 s (a loaded machine is slow to let it go).
    static func isGone(_ pid: pid_t) async -> Bool {
        for _ in 0..<500 {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
            if let close = stat.lastIndex(of: ")"), stat[close...].dropFirst(2).first == "Z" { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}
