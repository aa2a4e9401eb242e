import Foundation
import MoltipassTesting
import Testing

/// The documentation of `validate` and `lint` runs: README's shell lines and docs/recipes.md's JSON example.
struct ValidateReadmeTests {
    /// One `.build/debug/moltipass …   # exit N` line of the README section "Recipes: validate and lint".
    struct Example: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var status: Int32
        var testDescription: String { "moltipass " + arguments.joined(separator: " ") }
    }

    /// The ```sh block of a `## title` section of a Markdown file.
    static func block(_ language: String, in file: String, section title: String) -> [Substring] {
        let url = Fixtures.packageRoot.appendingPathComponent(file)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0 == "## \(title)" || $0 == "### \(title)" }) else { return [] }
        guard let open = lines[start...].firstIndex(of: "```\(language)"[...]) else { return [] }
        let body = lines[(open + 1)...]
        return Array(body.prefix { $0 != "```" })
    }

    static func examples() -> [Example] {
        block("sh", in: "README.md", section: "Recipes: validate and lint").compactMap { line in
            guard line.hasPrefix(".build/debug/moltipass ") else { return nil }
            let parts = line.split(separator: "#", maxSplits: 1)
            let words = parts[0].split(separator: " ").dropFirst().map(String.init)
            let status = parts.count > 1 ? Int32(parts[1].split(separator: " ").last ?? "") : nil
            return Example(arguments: words, status: status ?? -1)
        }
    }

    /// The section has command lines, and each says its exit status.
    @Test func readmeHasExamples() {
        let examples = Self.examples()
        #expect(examples.count >= 5)
        #expect(examples.allSatisfy { $0.status >= 0 }, "every line needs `# exit N`")
        #expect(Set(examples.map(\.status)) == [0, 11, 65])
    }

    /// Each README command line, run as written from the package root, exits as its comment says.
    @Test(arguments: examples()) func readmeExample(_ example: Example) async throws {
        let result = try await ValidateCommandTests.moltipass(example.arguments)
        #expect(result.status == example.status, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
    }

    /// docs/recipes.md's JSON example is exactly what `validate --json` prints for that fixture.
    @Test func documentedJSONReport() async throws {
        let documented = Self.block("json", in: "docs/recipes.md", section: "JSON report").joined(separator: "\n")
        #expect(!documented.isEmpty)
        let result = try await ValidateCommandTests.moltipass([
            "validate", "--json", "fixtures/recipes/bad/duplicate-key.yaml",
        ])
        #expect(result.status == 65)
        #expect(result.stdout == documented + "\n")
    }
}
