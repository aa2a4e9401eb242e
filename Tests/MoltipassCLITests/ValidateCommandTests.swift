import Foundation
import MoltipassTesting
import Testing

/// `moltipass validate` through the built binary, run from the package root with relative paths.
struct ValidateCommandTests {
    /// Runs `moltipass ARGS` in the package root (a temp HOME; nothing else in the environment).
    static func moltipass(_ arguments: [String], timeout: TimeInterval = 60) async throws -> ProcessRunner.Result {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        return try await ProcessRunner.run(
            "moltipass", arguments, environment: ["HOME": home.path], currentDirectory: Fixtures.packageRoot,
            timeout: timeout)
    }

    /// Every recipe in `recipes/` (queues aside), as paths relative to the package root.
    static func exampleRecipes() -> [String] {
        let root = Fixtures.packageRoot.appendingPathComponent("recipes").path
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.hasSuffix(".yaml") && !$0.hasPrefix("queues/") }.sorted().map { "recipes/" + $0 }
    }

    /// A bad fixture's `# expect: [FILE:]LINE:COLUMN fragment` line, as the `file:line:column` prefix the CLI prints
    /// (relative to the package root) and the message fragment.
    static func expectation(_ name: String) throws -> (position: String, fragment: String) {
        let text = try String(
            contentsOf: Fixtures.directory.appendingPathComponent("recipes/bad/" + name), encoding: .utf8)
        let first = try #require(text.split(separator: "\n").first.map(String.init))
        #expect(first.hasPrefix("# expect: "))
        let rest = first.dropFirst("# expect: ".count)
        let position = String(rest.prefix { $0 != " " })
        let fragment = String(rest.dropFirst(position.count + 1))
        let parts = position.split(separator: ":")
        let file =
            parts.count > 2
            ? "fixtures/recipes/bad/" + parts.dropLast(2).joined(separator: ":") : "fixtures/recipes/bad/" + name
        return ("\(file):\(parts[parts.count - 2]):\(parts[parts.count - 1]): error: ", fragment)
    }

    /// The bad fixtures that fail validation (the `lint-*` ones are valid recipes).
    static func invalidFixtures() -> [String] {
        ((try? Fixtures.names(in: "recipes/bad", withExtension: "yaml")) ?? []).filter { !$0.hasPrefix("lint-") }
    }

    /// Each example recipe validates on its own: exit 0, `ok FILE` on stdout, nothing on stderr.
    @Test(arguments: exampleRecipes()) func exampleIsValid(_ file: String) async throws {
        let result = try await Self.moltipass(["validate", file])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "ok \(file)\n")
        #expect(result.stderr.isEmpty)
    }

    /// A recipe of 10,000 jobs without anchors validates (issue 34, observation 8: it was refused as "an alias
    /// bomb?"), and one whose aliases expand past the limit is still refused with its position.
    @Test func tenThousandJobsAreNoBomb() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var text = "agent: big_fleet\njobs:\n"
        for index in 0..<10_000 {  // 12 nodes a job, 120,000 in all; 0.6 MB
            text += "  - { id: job-\(index), schedule: { every: 1h }, steps: [{ follow: someone }] }\n"
        }
        let big = directory.url.appendingPathComponent("big.yaml")
        try Data(text.utf8).write(to: big)
        // Two seconds of CPU in a debug build; the suite's heaviest part shares two cores with it (a CI run's 60 s
        // default ran out).
        let result = try await Self.moltipass(["validate", big.path], timeout: 300)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "ok \(big.path)\n")

        var bomb = "agent: bomb\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...6 {
            bomb +=
                "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
                + "]\n"
        }
        let bombFile = directory.url.appendingPathComponent("bomb.yaml")
        try Data(bomb.utf8).write(to: bombFile)
        let refused = try await Self.moltipass(["validate", bombFile.path])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("\(bombFile.path):6:"), "stderr: \(refused.stderr)")
        #expect(refused.stderr.contains("alias bomb"))
    }

    /// All examples at once: one `ok` line per file, in the order given.
    @Test func allExamplesAtOnce() async throws {
        let files = Self.exampleRecipes()
        #expect(files.count >= 5)
        let result = try await Self.moltipass(["validate"] + files)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == files.map { "ok \($0)\n" }.joined())
    }

    /// A selection of bad fixtures, one process each: exit 65, the expected `file:line:column: error:` and message on
    /// stderr, nothing on stdout.
    @Test(arguments: [
        "duplicate-key.yaml", "tab-indent.yaml", "unknown-action.yaml", "misspelt-top-key-suggestion.yaml",
        "cron-four-fields.yaml", "python-tag.yaml", "two-documents.yaml", "empty.yaml", "queue-item-no-title.yaml",
        "template-env-not-whitelisted.yaml", "limits-loosen.yaml", "selector-bad-regex.yaml",
    ])
    func badFixture(_ name: String) async throws {
        let (position, fragment) = try Self.expectation(name)
        let result = try await Self.moltipass(["validate", "fixtures/recipes/bad/" + name])
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        let line = result.stderr.split(separator: "\n").first { $0.hasPrefix(position) && $0.contains(fragment) }
        #expect(line != nil, "wanted \(position)…\(fragment); got\n\(result.stderr)")
    }

    /// Every invalid fixture in one invocation: exit 65, each expected diagnostic present, and a valid file given
    /// alongside still gets its `ok` line.
    @Test func everyInvalidFixtureAtOnce() async throws {
        let names = Self.invalidFixtures()
        #expect(names.count >= 40)
        let result = try await Self.moltipass(
            ["validate", "recipes/setup.yaml"] + names.map { "fixtures/recipes/bad/" + $0 })
        #expect(result.status == 65)
        #expect(result.stdout == "ok recipes/setup.yaml\n")
        let lines = result.stderr.split(separator: "\n")
        for name in names {
            let (position, fragment) = try Self.expectation(name)
            #expect(
                lines.contains { $0.hasPrefix(position) && $0.contains(fragment) },
                "\(name): wanted \(position)…\(fragment)")
        }
        // One diagnostic per line, each in the `file:line:column: severity: message` form.
        for line in lines {
            #expect(line.wholeMatch(of: /[^:]+:\d+:\d+: (error|warning): .+/) != nil, "\(line)")
        }
    }

    /// A diagnostic says what was expected: `…; expected …`.
    @Test func diagnosticNamesWhatWasExpected() async throws {
        let result = try await Self.moltipass(["validate", "fixtures/recipes/bad/cron-four-fields.yaml"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("; expected "), "\(result.stderr)")
    }

    /// A missing file, an empty directory: exit 65 with a clear `FILE:1:1: error: cannot read the recipe: …`
    /// line; the readable files still get their `ok`. A directory stands for its recipe files, as in `run`
    /// (issue 19: `validate` and `lint` used to refuse a directory that `run`, `status` and `plan` accept).
    @Test func unreadableFiles() async throws {
        let empty = try TemporaryDirectory(prefix: "moltipass-empty-recipes")
        defer { empty.remove() }
        let result = try await Self.moltipass([
            "validate", "recipes/no-such-recipe.yaml", "recipes/setup.yaml", "recipes/pair", empty.path,
        ])
        #expect(result.status == 65)
        #expect(result.stdout == "ok recipes/setup.yaml\nok recipes/pair/alice.yaml\nok recipes/pair/bob.yaml\n")
        #expect(
            result.stderr == """
                recipes/no-such-recipe.yaml:1:1: error: cannot read the recipe: no such file; expected a readable recipe file
                \(empty.path):1:1: error: cannot read the recipe: the directory has no recipe files (*.yaml, *.yml); \
                expected a readable recipe file

                """)
        let lint = try await LintCommandTests.moltipass(["lint", "--from", LintCommandTests.from, "recipes/pair"])
        #expect(lint.stdout == "ok recipes/pair/alice.yaml\nok recipes/pair/bob.yaml\n", "\(lint.stderr)")
    }

    /// `validate --json` on valid and invalid files: the documented schema, exit 65 as in text mode, nothing on stderr.
    @Test func jsonReport() async throws {
        let result = try await Self.moltipass(
            ["validate", "--json", "recipes/setup.yaml", "fixtures/recipes/bad/misspelt-top-key-suggestion.yaml"])
        #expect(result.status == 65)
        #expect(result.stderr.isEmpty)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(report["command"] as? String == "validate")
        #expect(report["exit_status"] as? Int == 65)
        let files = try #require(report["files"] as? [[String: Any]])
        #expect(files.count == 2)
        #expect(files[0]["file"] as? String == "recipes/setup.yaml")
        #expect(files[0]["valid"] as? Bool == true)
        #expect((files[0]["diagnostics"] as? [Any])?.isEmpty == true)
        #expect(files[1]["valid"] as? Bool == false)
        #expect((files[1]["errors"] as? Int ?? 0) >= 1)
        let diagnostic = try #require((files[1]["diagnostics"] as? [[String: Any]])?.first)
        #expect(diagnostic["file"] as? String == "fixtures/recipes/bad/misspelt-top-key-suggestion.yaml")
        #expect(diagnostic["line"] as? Int == 3)
        #expect(diagnostic["column"] as? Int == 1)
        #expect(diagnostic["severity"] as? String == "error")
        #expect(diagnostic["code"] as? String != nil)
        #expect(diagnostic["message"] as? String != nil)
        #expect(diagnostic["suggestion"] as? String == "time_zone")
    }

    /// `--json` for valid files only: exit 0 and `"exit_status": 0`.
    @Test func jsonReportAllValid() async throws {
        let result = try await Self.moltipass(["validate", "--json"] + Self.exampleRecipes())
        #expect(result.status == 0, "\(result.stdout)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(report["exit_status"] as? Int == 0)
        let files = try #require(report["files"] as? [[String: Any]])
        #expect(files.map { $0["file"] as? String } == Self.exampleRecipes())
        #expect(files.allSatisfy { $0["valid"] as? Bool == true })
    }

    /// No file at all is a usage error (64).
    @Test func noFiles() async throws {
        let result = try await Self.moltipass(["validate"])
        #expect(result.status == 64)
    }

    /// A recipe (and its queue) saved with a UTF-8 byte order mark is valid, as without it, and
    /// a later error keeps its line and column; `randomized_delay: 0s` means no delay and is valid.
    @Test func byteOrderMarkAndZeroDelay() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let bom = "\u{FEFF}"
        let recipe = """
            agent: bom_agent
            jobs:
              - id: posts
                schedule: { every: 1h, randomized_delay: 0s }
                steps:
                  - post: { submolt: general, queue: queue.yaml }

            """
        try (bom + "- title: \"First\"\n  content: \"Body.\"\n").write(
            toFile: directory.file("queue.yaml").path, atomically: true, encoding: .utf8)
        let good = directory.file("bom.yaml").path
        try (bom + recipe).write(toFile: good, atomically: true, encoding: .utf8)
        let valid = try await Self.moltipass(["validate", good])
        #expect(valid.status == 0, "\(valid.stderr)")
        #expect(valid.stdout == "ok \(good)\n")

        let bad = directory.file("bad.yaml").path
        try (bom + "agent: bom_agent\nbogus: 1\n" + recipe.dropFirst("agent: bom_agent\n".count)).write(
            toFile: bad, atomically: true, encoding: .utf8)
        let invalid = try await Self.moltipass(["validate", bad])
        #expect(invalid.status == 65)
        #expect(invalid.stderr.hasPrefix("\(bad):2:1: error: "), "\(invalid.stderr)")
        #expect(invalid.stderr.contains("bogus"), "\(invalid.stderr)")
    }
}
