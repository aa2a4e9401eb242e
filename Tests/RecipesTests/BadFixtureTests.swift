import Foundation
import MoltipassTesting
import Testing

@testable import Recipes

/// Every recipe in `fixtures/recipes/bad/` yields the diagnostic its first line announces:
/// `# expect: [FILE:]LINE:COLUMN fragment` — from validation, or from lint if it validates.
struct BadFixtureTests {
    static var directory: URL { Fixtures.directory.appendingPathComponent("recipes/bad").resolvingSymlinksInPath() }

    static func names() -> [String] {
        (try? Fixtures.names(in: "recipes/bad", withExtension: "yaml")) ?? []
    }

    struct Expectation {
        var file: String?
        var line: Int
        var column: Int
        var fragment: String
    }

    static func expectation(in text: String) -> Expectation? {
        guard let first = text.split(separator: "\n").first, first.hasPrefix("# expect: ") else { return nil }
        let rest = first.dropFirst("# expect: ".count)
        guard let space = rest.firstIndex(of: " ") else { return nil }
        var position = rest[..<space].split(separator: ":").map(String.init)
        guard position.count >= 2, let column = Int(position.removeLast()), let line = Int(position.removeLast()) else {
            return nil
        }
        return Expectation(
            file: position.isEmpty ? nil : position.joined(separator: ":"), line: line, column: column,
            fragment: String(rest[rest.index(after: space)...]))
    }

    /// At least 40 fixtures exist.
    @Test func enoughFixtures() {
        #expect(Self.names().count >= 40)
    }

    @Test(arguments: names()) func fixture(_ name: String) throws {
        let path = Self.directory.appendingPathComponent(name).path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let expectation = try #require(Self.expectation(in: text), "\(name) has no `# expect:` line")
        let findings: [Diagnostic]
        switch RecipeLoader.load(path: path) {
        case .failure(let diagnostics): findings = diagnostics.items
        case .success(let recipe):
            findings = Linter.lint(recipe, options: LintOptions(from: instant("2026-01-01T00:00:00Z")))
        }
        let expectedFile = expectation.file.map { Self.directory.appendingPathComponent($0).path } ?? path
        let match = findings.first {
            $0.file == expectedFile && $0.line == expectation.line && $0.column == expectation.column
                && $0.description.contains(expectation.fragment)
        }
        #expect(
            match != nil,
            "\(name): wanted \(expectation.line):\(expectation.column) \(expectation.fragment); got\n\(Diagnostics(findings))"
        )
        // The one-line form is `file:line:column: severity: message…`.
        if let match {
            #expect(match.description.hasPrefix("\(expectedFile):\(expectation.line):\(expectation.column): "))
        }
    }
}
