import Foundation
import MoltipassTesting
import Testing

@testable import Recipes

/// Every ```yaml block in docs/recipes.md and docs/generation.md loads, or yields the error its
/// `# expect-error:` line names.
struct DocumentationTests {
    /// The pages whose YAML blocks are recipes.
    static let pages = ["docs/recipes.md", "docs/generation.md"]

    struct Block: Sendable, CustomTestStringConvertible {
        var page: String
        var line: Int
        var text: String
        var testDescription: String { "\(page):\(line)" }
    }

    static func blocks() -> [Block] {
        pages.flatMap(blocks(in:))
    }

    static func blocks(in page: String) -> [Block] {
        let url = Fixtures.packageRoot.appendingPathComponent(page)
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        var blocks: [Block] = []
        var current: [Substring]?
        var start = 0
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if current == nil, line == "```yaml" {
                current = []
                start = index + 2
            } else if current != nil, line == "```" {
                blocks.append(Block(page: page, line: start, text: (current ?? []).joined(separator: "\n") + "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The reference has examples at all, and so does the page on generated content.
    @Test func hasExamples() {
        #expect(Self.blocks(in: "docs/recipes.md").count >= 8)
        #expect(Self.blocks(in: "docs/generation.md").count >= 4)
    }

    @Test(arguments: blocks()) func example(_ block: Block) {
        let recipes = Fixtures.packageRoot.appendingPathComponent("recipes").resolvingSymlinksInPath().path
        let result = RecipeLoader.load(bytes: Array(block.text.utf8), file: recipes + "/doc-example.yaml") { path in
            FileManager.default.contents(atPath: path).map { [UInt8]($0) }
        }
        let firstLine = block.text.prefix { $0 != "\n" }
        if firstLine.hasPrefix("# expect-error: ") {
            let rest = firstLine.dropFirst("# expect-error: ".count)
            let position = rest.prefix { $0 != " " }
            let fragment = rest.dropFirst(position.count + 1)
            guard case .failure(let diagnostics) = result else {
                Issue.record("\(block.testDescription): expected an error, the example loaded")
                return
            }
            let found = diagnostics.items.contains {
                "\($0.line):\($0.column)" == position && $0.description.contains(fragment)
            }
            #expect(found, "\(block.testDescription): wanted \(position) \(fragment); got\n\(diagnostics)")
        } else if case .failure(let diagnostics) = result {
            Issue.record("\(block.testDescription): \(diagnostics)")
        }
    }
}
