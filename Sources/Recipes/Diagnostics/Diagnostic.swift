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

    /// One line, always: control characters a message quotes from the recipe (a name with a
    /// newline in it) are shown escaped, so tools reading `file:line:column:` lines are not misled.
    public var description: String {
        var text = "\(file):\(line):\(column): \(severity.rawValue): \(message)"
        if let expected { text += "; expected \(expected)" }
        if let suggestion { text += " (did you mean `\(suggestion)`?)" }
        return Self.oneLine(text)
    }

    static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
