/// One finding about a recipe, pinned to a file position: `file:line:column: error: what is wrong; expected …`.
public struct Diagnostic: Sendable, Equatable, Codable, CustomStringConvertible {
    public enum Severity: String, Sendable, Codable, Equatable {
        case error, warning
    }

    public var file: String
    public var line: Int
    public var column: Int
    public var severity: Severity
    /// A stable identifier for the kind of finding (`unknown-key`, `yaml`, `lint-size`, …), for tools.
    public var code: String
    /// What is wrong.
    public var message: String
    /// What would have been accepted.
    public var expected: String?
    /// A close, valid spelling ("did you mean").
    public var suggestion: String?

    public init(
        file: String, mark: Mark, severity: Severity = .error, code: String, message: String,
        expected: String? = nil, suggestion: String? = nil
    ) {
        self.file = file
        self.line = mark.line
        self.column = mark.column
        self.severity = severity
        self.code = code
        self.message = message
        self.expected = expected
        self.suggestion = suggestion
    }

    public var mark: Mark { Mark(line: line, column: column) }

    public var description: String {
        var text = "\(file):\(line):\(column): \(severity.rawValue): \(message)"
        if let expected { text += "; expected \(expected)" }
        if let suggestion { text += " (did you mean `\(suggestion)`?)" }
        return text
    }
}
