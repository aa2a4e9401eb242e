import Foundation

/// What a solver made of a challenge: an answer to send, or a reasoned refusal.
public enum Solution: Sendable, Equatable {
    /// The answer as the server wants it (`"15.00"`), with the solver's confidence (0…1), the operation and the
    /// operands it read (in text order).
    case answer(String, confidence: Double, operation: ArithmeticOperation?, operands: [Decimal])
    /// No answer: why, and how confident the best reading was (0 when there was none).
    case declined(reason: String, confidence: Double)

    /// The answer text, or nil for a decline.
    public var answerText: String? {
        if case .answer(let text, _, _, _) = self { return text }
        return nil
    }

    /// The confidence of the answer, or of the best reading behind a decline.
    public var confidence: Double {
        switch self {
        case .answer(_, let confidence, _, _): confidence
        case .declined(_, let confidence): confidence
        }
    }

    /// Whether this is a decline.
    public var isDeclined: Bool {
        if case .declined = self { return true }
        return false
    }
}

/// Formatting and parsing of answers: two decimals, rounded half-up, no locale.
public enum AnswerFormat {
    /// `value` rounded half-up to two places, as text (`"15.00"`, `"-3.50"`).
    public static func twoDecimals(_ value: Decimal) -> String {
        var input = value
        var rounded = Decimal()
        NSDecimalRound(&rounded, &input, 2, .plain)
        let text = NSDecimalNumber(decimal: rounded).stringValue
        let negative = text.hasPrefix("-")
        let digits = negative ? String(text.dropFirst()) : text
        let parts = digits.split(separator: ".", maxSplits: 1)
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        let whole = parts.first.map(String.init) ?? "0"
        return (negative ? "-" : "") + whole + "." + (fraction + "00").prefix(2)
    }

    /// The first number in `text` (an optional sign, digits, an optional fraction), or nil when there is none or
    /// the text holds anything but that number and surrounding white space.
    public static func parse(_ text: String) -> Decimal? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        var body = Substring(trimmed)
        var negative = false
        if let first = body.first, first == "+" || first == "-" {
            negative = first == "-"
            body = body.dropFirst()
        }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return nil
        }
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        }
        guard let value = Decimal(string: String(body), locale: Locale(identifier: "en_US_POSIX")) else { return nil }
        return negative ? -value : value
    }
}
