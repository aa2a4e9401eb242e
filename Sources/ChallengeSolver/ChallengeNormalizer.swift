import Foundation

/// One piece of a challenge text after normalisation.
public enum ChallengeToken: Sendable, Equatable {
    /// A run of letters, lowercased, noise symbols removed, doubled letters kept (fragments of split words stay
    /// separate: "tW eN tY" gives three words).
    case word(String)
    /// A number written in digits ("23", "2.5").
    case digits(Decimal)
    /// An operator symbol standing alone between words (`+`, `-`, `*`, `/`, `×`, `÷`).
    case symbol(Character)
}

/// Turns an obfuscated challenge text into plain tokens: lowercase letters, digit numbers and standalone
/// operator symbols. Every other symbol is noise and dropped, inside a word or around it.
public enum ChallengeNormalizer {
    /// Symbols that mean an operation when they stand alone between words.
    static let operatorSymbols: Set<Character> = ["+", "-", "*", "/", "×", "÷", "−"]

    /// The tokens of `text`, in order.
    public static func tokens(_ text: String) -> [ChallengeToken] {
        var out: [ChallengeToken] = []
        for raw in text.lowercased().split(whereSeparator: { $0.isWhitespace }) {
            let hasContent = raw.contains { $0.isLetter || $0.isNumber }
            if !hasContent {
                if raw.count == 1, let symbol = raw.first, operatorSymbols.contains(symbol) {
                    out.append(.symbol(symbol == "−" ? "-" : symbol))
                }
                continue
            }
            out += pieces(of: Array(raw))
        }
        return out
    }

    /// Letters and digit runs of one whitespace-separated token; symbols inside are dropped ("lO^bSt-Er" is one
    /// word), except a `.` between digits.
    private static func pieces(of characters: [Character]) -> [ChallengeToken] {
        var out: [ChallengeToken] = []
        var letters = ""
        var digits = ""
        func flushLetters() {
            if !letters.isEmpty { out.append(.word(letters)) }
            letters = ""
        }
        func flushDigits() {
            if let value = Decimal(string: digits, locale: Locale(identifier: "en_US_POSIX")), !digits.isEmpty {
                out.append(.digits(value))
            }
            digits = ""
        }
        for (index, character) in characters.enumerated() {
            if character.isASCII && character.isNumber {
                flushLetters()
                digits.append(character)
            } else if character == ".", !digits.isEmpty, index + 1 < characters.count,
                characters[index + 1].isASCII && characters[index + 1].isNumber, !digits.contains(".")
            {
                digits.append(character)
            } else if character.isLetter {
                flushDigits()
                letters.append(character)
            }
        }
        flushLetters()
        flushDigits()
        return out
    }

    /// `word` with runs of the same letter collapsed to one ("thhrreee" → "thre", "seeven" → "seven").
    public static func collapse(_ word: String) -> String {
        var out = ""
        for character in word where character != out.last {
            out.append(character)
        }
        return out
    }

    /// The letters of every word of `text`, lowercased, collapsed and joined without spaces (numbers as `#`):
    /// the form operation cues are searched in, immune to split words and noise.
    public static func stream(_ text: String) -> String {
        var out = ""
        for token in tokens(text) {
            switch token {
            case .word(let word): out += word
            case .digits: out += "#"
            case .symbol(let symbol): out.append(symbol)
            }
        }
        return collapse(out)
    }
}
