import ChallengeSolver
import Determinism
import Foundation

/// One generated verification challenge: the text an agent sees and the answer the grader expects.
public struct GeneratedChallenge: Sendable, Equatable {
    /// The (obfuscated) challenge text.
    public var text: String
    /// The same problem in plain lowercase (level 0).
    public var plainText: String
    /// The exact answer.
    public var answer: Decimal
    public var operation: ArithmeticOperation
    /// The two operands, in the order they appear in the text.
    public var operands: [Decimal]
    /// The obfuscation level used.
    public var level: Int

    /// The answer as the grader likes it: two decimals, e.g. `"15.00"`.
    public var formattedAnswer: String {
        SandboxDecimal.twoPlaces(answer)
    }
}

/// Seeded generator of lobster-math challenges in the style of real Moltbook texts.
///
/// Levels: 0 plain lowercase; 1 alternating case and noise symbols (`] ^ / ~ -` …); 2 also split words
/// and doubled letters; 3 also fillers (`um`, `uh`), junk tokens and framing phrases, some with a
/// distractor number. Noise never forms a standalone `-`, `*`, `+` or `/` token, so each text has exactly
/// one reading under the conventions in challenges.md.
public struct ChallengeGenerator: Sendable {
    private var random: SeededRandom

    public init(seed: UInt64) {
        self.random = SeededRandom(seed: seed)
    }

    /// The next challenge at obfuscation `level` (clamped to 0…3).
    public mutating func next(level: Int) -> GeneratedChallenge {
        let level = min(3, max(0, level))
        let operation = pickOperation()
        let templates = ChallengeTemplate.all.filter { $0.operation == operation }
        let template = random.pick(templates)
        let (a, b) = operands(for: template)
        let answer = operation.result(a, b)
        let aWords = NumberWords.words(a)
        let bWords = NumberWords.words(b)
        var tokens: [ChallengeToken] = []
        for word in template.text.split(separator: " ").map(String.init) {
            if word.hasPrefix("{a}") || word.hasPrefix("{b}") {
                let words = word.hasPrefix("{a}") ? aWords : bWords
                tokens += words.map { ChallengeToken(text: $0, isNumber: true) }
                let rest = String(word.dropFirst(3))
                if !rest.isEmpty, var last = tokens.popLast() {
                    last.text += rest
                    tokens.append(last)
                }
            } else {
                tokens.append(ChallengeToken(text: word, isNumber: false))
            }
        }
        let plain = tokens.map(\.text).joined(separator: " ")
        var obfuscator = ChallengeObfuscator(random: random)
        let text = obfuscator.obfuscate(tokens, level: level)
        random = obfuscator.random
        return GeneratedChallenge(
            text: text, plainText: plain, answer: answer, operation: operation, operands: [a, b], level: level)
    }

    /// Roughly the mix of real texts: + 55 %, × 25 %, − 15 %, ÷ 5 %.
    private mutating func pickOperation() -> ArithmeticOperation {
        let roll = random.int(in: 0...99)
        switch roll {
        case 0..<55: return .add
        case 55..<80: return .multiply
        case 80..<95: return .subtract
        default: return .divide
        }
    }

    /// Operands in the observed ranges: first 2–85 (mostly 20–45), second 2–35 (mostly 2–19).
    private mutating func operands(for template: ChallengeTemplate) -> (Decimal, Decimal) {
        switch template.operation {
        case .divide:
            let divisor = random.int(in: 2...9)
            let quotient = random.int(in: 2...(85 / divisor))
            return (Decimal(divisor * quotient), Decimal(divisor))
        case .add, .subtract, .multiply:
            var first = random.chance(0.7) ? random.int(in: 20...45) : random.int(in: 2...85)
            var second: Int
            if template.countOperand {
                second = random.int(in: 2...9)
            } else {
                second = random.chance(0.75) ? random.int(in: 2...19) : random.int(in: 2...35)
            }
            if template.operation == .subtract, first <= second {
                if second >= 85 { second = random.int(in: 2...30) }
                first = random.int(in: (second + 1)...85)
            }
            let half: Decimal = random.chance(0.08) ? 0.5 : 0
            return (Decimal(first) + half, Decimal(second))
        }
    }
}

/// Decimal helpers shared by the generator and the grader.
enum SandboxDecimal {
    /// `value` rounded half-up to two places, as text (`"15.00"`).
    static func twoPlaces(_ value: Decimal) -> String {
        var input = value
        var rounded = Decimal()
        NSDecimalRound(&rounded, &input, 2, .plain)
        let text = NSDecimalNumber(decimal: rounded).stringValue
        let parts = text.split(separator: ".", maxSplits: 1)
        let fraction = parts.count > 1 ? String(parts[1]) : ""
        return String(parts[0]) + "." + (fraction + "00").prefix(2)
    }

    /// Parses an answer in any numeric form (`"15"`, `"15.0"`, `" 15.00 "`, `"+15"`), or nil.
    static func parse(_ text: String) -> Decimal? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty,
            trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+") })
        else { return nil }
        let unsigned = trimmed.hasPrefix("+") ? String(trimmed.dropFirst()) : trimmed
        return Decimal(string: unsigned, locale: Locale(identifier: "en_US_POSIX"))
    }

    /// Whether two numbers agree to two decimal places.
    static func sameToCents(_ lhs: Decimal, _ rhs: Decimal) -> Bool {
        twoPlaces(lhs) == twoPlaces(rhs)
    }
}
