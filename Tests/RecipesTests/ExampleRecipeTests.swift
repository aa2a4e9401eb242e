import Foundation
import MoltipassTesting
import Testing

@testable import Recipes

/// The recipes shipped in `recipes/`.
struct ExampleRecipeTests {
    static var recipesDirectory: URL {
        Fixtures.packageRoot.appendingPathComponent("recipes").resolvingSymlinksInPath()
    }

    static func recipeFiles() -> [String] {
        let root = recipesDirectory.path
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.hasSuffix(".yaml") && !$0.hasPrefix("queues/") }.sorted()
    }

    /// There are at least five examples.
    @Test func enoughExamples() {
        #expect(Self.recipeFiles().count >= 5)
    }

    /// Each example validates with no diagnostics and lints clean.
    @Test(arguments: recipeFiles()) func validatesAndLints(_ name: String) throws {
        let path = Self.recipesDirectory.appendingPathComponent(name).path
        switch RecipeLoader.load(path: path) {
        case .failure(let diagnostics):
            Issue.record("\(diagnostics)")
        case .success(let recipe):
            #expect(!recipe.jobs.isEmpty)
            let findings = Linter.lint(recipe, options: LintOptions(from: instant("2026-11-30T00:00:00Z")))
            #expect(findings.isEmpty, "\(Diagnostics(findings))")
        }
    }
}
