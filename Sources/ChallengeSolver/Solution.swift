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
        // Two places always have a text (only a whole number can refuse a value).
        AnswerForm(places: 2).write(value) ?? "\(value)"
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

/// How a server wants an answer written, read from what the challenge says (issue 33,
/// observation 6: a server that compares answers as strings wanted `4`, not `4.00`, and two
/// answers sent in Moltbook's form were wrong there). Moltbook's instructions say "with 2 decimal
/// places, e.g., '525.00'"; others say "a whole number", "an integer", "no decimals", or give an
/// example alone. A challenge that says nothing of the form, or says two things that disagree, is
/// declined: a guess that is wrong counts towards a suspension, a decline costs the one write.
public struct AnswerForm: Sendable, Equatable {
    /// Digits after the point; 0 for a whole number.
    public var places: Int

    public init(places: Int) { self.places = places }

    /// The form `instructions` (else the challenge's text) ask for, or why it cannot be known.
    public static func read(instructions: String?, text: String) -> Result<AnswerForm, Unknown> {
        for source in [instructions, text].compactMap({ $0 }) {
            let said = stated(in: source)
            if said.count == 1, let form = said.first { return .success(form) }
            if said.count > 1 {
                return .failure(
                    Unknown(reason: "the challenge asks for the answer in two forms (\(source.prefix(80)))"))
            }
        }
        return .failure(Unknown(reason: "the challenge does not say how its answer is written"))
    }

    /// Why a form cannot be known.
    public struct Unknown: Error, Sendable, Equatable {
        public var reason: String
    }

    /// `value` in this form: rounded half-up to `places`; nil for a whole number asked of a value
    /// that is not one (rounding it would be a guess at what the server does).
    public func write(_ value: Decimal) -> String? {
        if places == 0 {
            var input = value
            var rounded = Decimal()
            NSDecimalRound(&rounded, &input, 0, .plain)
            guard rounded == value else { return nil }
            return NSDecimalNumber(decimal: rounded).stringValue
        }
        var input = value
        var rounded = Decimal()
        NSDecimalRound(&rounded, &input, places, .plain)
        let text = NSDecimalNumber(decimal: rounded).stringValue
        let negative = text.hasPrefix("-")
        let digits = negative ? String(text.dropFirst()) : text
        let parts = digits.split(separator: ".", maxSplits: 1)
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        let whole = parts.first.map(String.init) ?? "0"
        let padded = (fraction + String(repeating: "0", count: places)).prefix(places)
        return (negative ? "-" : "") + whole + "." + padded
    }

    /// Every distinct form `text` states.
    static func stated(in text: String) -> Set<AnswerForm> {
        let lower = text.lowercased()
        var forms: Set<AnswerForm> = []
        let numbers = ["zero": 0, "no": 0, "one": 1, "two": 2, "three": 3, "four": 4, "a single": 1]
        // "2 decimal places", "two decimals", "to 1 decimal place"
        for match in lower.matches(of: #/(\d+|zero|no|one|two|three|four|a single)\s+decimal(?:\s+places?|s)?\b/#) {
            let word = String(match.output.1)
            if let places = Int(word) ?? numbers[word] { forms.insert(AnswerForm(places: places)) }
        }
        if lower.contains("whole number") || lower.contains("integer") || lower.contains("without decimals")
            || lower.contains("no decimal")
        {
            forms.insert(AnswerForm(places: 0))
        }
        // An example: "e.g., '525.00'", "e.g. 4", "for example: \"12.5\"".
        for match in lower.matches(of: #/(?:e\.g\.,?|for example:?|such as)\s*['"`]?(-?\d+)(?:\.(\d+))?['"`]?/#) {
            forms.insert(AnswerForm(places: match.output.2.map { $0.count } ?? 0))
        }
        return forms
    }
}

extension AnswerForm: Hashable {}
