import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// `moltipass challenge solve` through the built binary: built-in, none and command solvers.
struct ChallengeCommandTests {
    static let challenge =
        "A] lObStEr SwImS aT tHiRtY / TwO mEtErS pEr SeCoNd AnD sLoWs By NiNe, WhAt Is ThE nEw SpEeD?"

    /// Runs `moltipass challenge solve ARGS` with `input` on stdin in a temp HOME.
    static func solve(_ arguments: [String], input: String = challenge, environment: [String: String] = [:])
        async throws -> ProcessRunner.Result
    {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        return try await ProcessRunner.run(
            "moltipass", ["challenge", "solve"] + arguments,
            environment: environment.merging(["HOME": home.path]) { $1 }, stdin: Data(input.utf8), timeout: 30)
    }

    /// A solver gets Moltipass's environment without Moltipass's own variables: the keychain's
    /// passphrase never reaches an operator's program.
    @Test func solverNeverSeesMoltipassVariables() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let seen = directory.file("env.txt").path
        let path = try Self.script("env.sh", "env > '\(seen)'\necho 23", in: directory)
        let result = try await Self.solve(
            ["--solver", "command:\(path)"],
            environment: ["MOLTIPASS_PASSPHRASE": "not-for-solvers", "SOLVER_STYLE": "terse"])
        #expect(result.status == 0, "\(result.stderr)")
        let environment = try String(contentsOfFile: seen, encoding: .utf8)
        #expect(environment.contains("SOLVER_STYLE=terse"))
        #expect(!environment.contains("MOLTIPASS_") && !environment.contains("not-for-solvers"))
    }

    /// Writes an executable shell script into `directory`.
    static func script(_ name: String, _ body: String, in directory: TemporaryDirectory) throws -> String {
        let url = directory.file(name)
        try Data(("#!/bin/sh\n" + body + "\n").utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        return url.path
    }

    /// A solver's children go with it once it has answered: the one left in its group and a
    /// `setsid` grandchild (issue 34: `scripts/reliability/hostile-programs` found both alive after
    /// the run). What it prints reaches the reason without control characters.
    @Test func aSolversChildrenDoNotOutliveIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (grouped, detached) = (directory.file("grouped.pid").path, directory.file("detached.pid").path)
        let path = try Self.script(
            "leaver.sh",
            """
            sleep 300 & echo $! > '\(grouped)'
            setsid sh -c 'echo $$ > "$1"; exec sleep 300' sh '\(detached)' &
            while [ ! -s '\(detached)' ]; do sleep 0.05; done
            printf '\\033[2J\\007 not a number \\000'
            """, in: directory)
        let result = try await Self.solve(["--solver", "command:\(path)"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("not one number"), "\(result.stderr)")
        #expect(!result.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0 })
        for file in [grouped, detached] {
            let pid = try #require(
                pid_t(try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))
            )
            var gone = false
            for _ in 0..<100 where !gone {
                gone = !OnceStopTests.isAlive(pid)
                if !gone { try await Task.sleep(for: .milliseconds(50)) }
            }
            if !gone { kill(pid, SIGKILL) }
            #expect(gone, "\(file): \(pid) outlived the solver")
        }
    }

    /// The built-in solver answers with two decimals on stdout and exits 0.
    @Test func builtinAnswers() async throws {
        let result = try await Self.solve([])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "23.00\n")
        #expect(result.stderr.isEmpty)
    }

    /// `--explain` adds the confidence and the reading on stderr; stdout stays the bare answer.
    @Test func explain() async throws {
        let result = try await Self.solve(["--explain"])
        #expect(result.status == 0)
        #expect(result.stdout == "23.00\n")
        #expect(result.stderr.contains("32 - 9"))
    }

    /// A text without a problem is declined: reason on stderr, nothing on stdout, exit 13.
    @Test func builtinDeclinesNonsense() async throws {
        let result = try await Self.solve([], input: "the lobster waves hello")
        #expect(result.status == 13)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("declined"))
    }

    /// A threshold above every confidence turns an answer into a decline that names the reading.
    @Test func thresholdDeclines() async throws {
        let result = try await Self.solve(["--threshold", "0.99"])
        #expect(result.status == 13)
        #expect(result.stderr.contains("32 - 9"))
    }

    /// `--solver none` always declines.
    @Test func noneDeclines() async throws {
        let result = try await Self.solve(["--solver", "none"])
        #expect(result.status == 13)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("none"))
    }

    /// A command solver gets the text on stdin; its number comes back with two decimals.
    @Test func commandSolverAnswers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let seen = directory.file("seen.txt").path
        let path = try Self.script("solver.sh", "cat > '\(seen)'\necho 23", in: directory)
        let result = try await Self.solve(["--solver", "command:\(path)"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "23.00\n")
        #expect(try String(contentsOfFile: seen, encoding: .utf8).contains("sLoWs By NiNe"))
    }

    /// Garbage output, a non-zero exit and a missing program are declines with the reason.
    @Test(arguments: [
        ("garbage.sh", "echo 'the answer is 23'", "not one number"),
        ("failing.sh", "echo boom >&2\nexit 3", "exited with status 3: boom"),
        ("empty.sh", "exit 0", "not one number"),
    ])
    func commandSolverFailures(_ name: String, _ body: String, _ fragment: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Self.script(name, body, in: directory)
        let result = try await Self.solve(["--solver", "command:\(path)"])
        #expect(result.status == 13)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(fragment), "stderr: \(result.stderr)")
    }

    /// A missing solver program is a decline, not a crash.
    @Test func missingCommand() async throws {
        let result = try await Self.solve(["--solver", "command:/nonexistent/solver"])
        #expect(result.status == 13)
        #expect(result.stderr.contains("not an executable"))
    }

    /// A hanging solver (with a child holding its stdout) is killed at --timeout and declined, without waiting
    /// for the child. The bound is far from both the expected ~4 s and the child's 120 s, so that a loaded
    /// machine cannot fail it (CI once took 13 s with a 30 s child and a 10 s bound).
    @Test func commandSolverTimeout() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Self.script("hang.sh", "sleep 120\necho 1", in: directory)
        let started = Date()
        let result = try await Self.solve(["--solver", "command:\(path)", "--timeout", "1"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 13)
        #expect(result.stderr.contains("within 1 s"), "stderr: \(result.stderr)")
        #expect(elapsed < 60, "took \(elapsed) s")
    }

    /// docs/challenges.md, whose `--json` table and example these tests hold the binary to.
    static func docs() throws -> [Substring] {
        try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/challenges.md"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The `--json` object of `result`: exactly `fields`, each in docs/challenges.md's table.
    static func object(
        _ result: ProcessRunner.Result, _ fields: Set<String>, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: JSONValue] {
        let documented = documentedFields(table: "`challenge solve --json` field", in: try docs())
        return try reportObject(result, fields: fields, documented: documented, sourceLocation: sourceLocation)
    }

    /// `--json`: one object on stdout for an answer (with the built-in reading, or a command
    /// solver's number) and for a decline (with the reason, which stays on stderr too), same exit
    /// statuses; a usage error prints no object.
    @Test func jsonAnswersAndDeclines() async throws {
        let answered = try await Self.solve(["--json"])
        #expect(answered.status == 0, "stderr: \(answered.stderr)")
        #expect(answered.stderr.isEmpty)
        let answer = try Self.object(answered, ["result", "answer", "confidence", "operation", "operands"])
        #expect(answer["result"]?.string == "answered")
        #expect(answer["answer"]?.string == "23.00")
        #expect(answer["operation"]?.string == "subtract")
        #expect(answer["operands"] == .array([.number(32), .number(9)]))
        #expect((0.7...1).contains(answer["confidence"]?.double ?? -1))

        let declined = try await Self.solve(["--json", "--threshold", "0.99"])
        #expect(declined.status == 13)
        #expect(declined.stderr.contains("declined"))
        let decline = try Self.object(declined, ["result", "confidence", "reason"])
        #expect(decline["result"]?.string == "declined")
        #expect(decline["reason"]?.string?.contains("32 - 9") == true)
        #expect(declined.stderr.contains(decline["reason"]?.string ?? "?"))

        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Self.script("solver.sh", "echo 7.125", in: directory)
        let solved = try await Self.solve(["--solver", "command:\(path)", "--json"])
        #expect(solved.status == 0, "\(solved.stderr)")
        let command = try Self.object(solved, ["result", "answer", "confidence"])
        #expect(command["answer"]?.string == "7.13")
        #expect(command["confidence"]?.double == 1)

        let usage = try await Self.solve(["--json"], input: "\n")
        #expect(usage.status == 64)
        #expect(usage.stdout.isEmpty)
    }

    /// The `--json` example of docs/challenges.md, run: the documented object is what the binary prints.
    @Test func documentedJSONExample() async throws {
        let block = try #require(
            Readme.blocks("sh", in: try Self.docs()).first { $0.first?.hasSuffix("challenge solve --json") == true })
        let text = try #require(block[0].firstMatch(of: /echo '([^']+)'/)).1
        let result = try await Self.solve(["--json"], input: String(text) + "\n")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == block.dropFirst().joined(separator: "\n") + "\n")
    }

    /// Bad options and empty input are usage errors (64).
    @Test(arguments: [
        ["--solver", "bogus"], ["--threshold", "1.5"], ["--solver", "command:"], ["--timeout", "0"],
        ["--solver", "builtin:2"],
    ])
    func usageErrors(_ arguments: [String]) async throws {
        let result = try await Self.solve(arguments)
        #expect(result.status == 64, "stderr: \(result.stderr)")
    }

    /// No text on stdin is a usage error.
    @Test func emptyInput() async throws {
        let result = try await Self.solve([], input: "  \n")
        #expect(result.status == 64)
        #expect(result.stderr.contains("no challenge text"))
    }
}
