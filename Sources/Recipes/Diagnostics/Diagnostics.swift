import Foundation

/// The findings of one validation or lint pass, in file order; the error type of `RecipeLoader`.
public struct Diagnostics: Error, Sendable, Equatable, CustomStringConvertible {
    public var items: [Diagnostic]

    public init(_ items: [Diagnostic] = []) { self.items = items }

    /// True if any finding is an error (warnings alone leave a recipe valid).
    public var hasErrors: Bool { items.contains { $0.severity == .error } }

    /// One finding per line, sorted by file, line and column.
    public var description: String { sorted().items.map(\.description).joined(separator: "\n") }

    /// The same findings ordered by file, line, column.
    public func sorted() -> Diagnostics {
        Diagnostics(items.sorted { ($0.file, $0.line, $0.column) < ($1.file, $1.line, $1.column) })
    }

    /// A JSON array of findings: `[{"file", "line", "column", "severity", "code", "message", "expected"?, "suggestion"?}]`.
    public func jsonData() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(sorted().items)) ?? Data("[]".utf8)
    }
}
