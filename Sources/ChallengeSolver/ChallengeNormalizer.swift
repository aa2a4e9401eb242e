import Foundation

/// One piece of a challenge text after normalisation.
public enum ChallengeToken: Sendable, Equatable {
    /// A run of letters, lowercased, noise symbols removed, doubled letters kept (fragments of split words stay
    /// separate: "tW eN tY" gives three words).
    case word(String)
    /// A number written in digits ("23", "2.5").
    case digits(Decimal)
    /// An operator symbol standing alone between words (`+`, `-`, `*`, `/`, `×`, `÷`), possibly wrapped in noise
    /// (`]*`, `+~`).
    case symbol(Character)
    /// A `*`, `+` or `×` stuck to a word: at its edge (`NeWtOnS*`, `*6`) or inside it (`FoRcE*GrOwTh`). Sometimes
    /// the operator, sometimes noise (`FiVe+`, `d*`); `-` and `/` stuck to words are always noise and dropped.
    case attached(Character, inside: Bool)
}

/// Turns an obfuscated challenge text into plain tokens: lowercase letters, digit numbers and operator symbols.
/// Every other symbol is noise and dropped, inside a word or around it.
public enum ChallengeNormalizer {
    /// Symbols that mean an operation when they stand alone between words.
    static let operatorSymbols: Set<Character> = ["+", "-", "*", "/", "×", "÷", "−"]
    /// Operator symbols that keep a possible meaning when stuck to a word.
    static let attachableSymbols: Set<Character> = ["+", "*", "×"]

    /// The tokens of `text`, in order.
    public static func tokens(_ text: String) -> [ChallengeToken] {
        var out: [ChallengeToken] = []
        for raw in text.lowercased().split(whereSeparator: { $0.isWhitespace }) {
            let hasContent = raw.contains { $0.isLetter || $0.isNumber }
            if !hasContent {
                if raw.contains("&") {
                    out.append(.word("and"))
                    continue
                }
                // A symbol-only token: its operator symbol stands alone ("]*", "+~", "-"). With several, a `*` or `+`
                // is the operator and `/` (common noise) is dropped ("*/"); `-` with `/` is noise. A `-` with a `*`
                // or `+` ("-*": either may be the noise), or two of `*` `+` ("*+"), are all kept: between the
                // numbers they disagree, and the text is declined.
                let symbols = raw.filter { operatorSymbols.contains($0) }.map { $0 == "−" ? "-" : $0 }
                let strong = symbols.filter { "*+×÷".contains($0) }
                let kept = strong.isEmpty ? [] : strong + symbols.filter { $0 == "-" }
                if Set(symbols).count == 1, let symbol = symbols.first {
                    out.append(.symbol(symbol))
                } else if Set(kept).count == 1, let symbol = kept.first {
                    out.append(.symbol(symbol))
                } else if Set(kept).count > 1 {
                    var seen: Set<Character> = []
                    for symbol in kept where seen.insert(symbol).inserted { out.append(.symbol(symbol)) }
                }
                continue
            }
            if raw.filter(\.isLetter) == "x", !raw.contains(where: \.isNumber) {
                // A lone "x" between two quantities is a multiplication sign ("NeWtOnS ~ x FiVe").
                out.append(.symbol("x"))
                continue
            }
            out += pieces(of: Array(raw))
        }
        return out
    }

    /// Letters, digit runs and attached operators of one whitespace-separated token; other symbols inside are
    /// dropped ("lO^bSt-Er" is one word), a `.` between digits is kept and a `0` between letters is the letter o
    /// ("VeLo0oCiTy").
    private static func pieces(of characters: [Character]) -> [ChallengeToken] {
        var out: [ChallengeToken] = []
        var letters = ""
        var digits = ""
        var pending: Character?
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
        func flushSymbol(inside: Bool) {
            if let symbol = pending { out.append(.attached(symbol, inside: inside)) }
            pending = nil
        }
        let isLetter = { (index: Int) in index >= 0 && index < characters.count && characters[index].isLetter }
        for (index, character) in characters.enumerated() {
            if character.isASCII && character.isNumber {
                if character == "0", isLetter(index - 1), isLetter(index + 1) {
                    letters.append("o")
                    continue
                }
                flushLetters()
                flushSymbol(inside: false)
                digits.append(character)
            } else if character == ".", !digits.isEmpty, index + 1 < characters.count,
                characters[index + 1].isASCII && characters[index + 1].isNumber, !digits.contains(".")
            {
                digits.append(character)
            } else if character.isLetter {
                flushDigits()
                if pending != nil {
                    let inside = !letters.isEmpty
                    flushLetters()
                    flushSymbol(inside: inside)
                }
                letters.append(character)
            } else if attachableSymbols.contains(character) {
                flushDigits()
                if pending == nil { pending = character }
            }
        }
        flushLetters()
        flushDigits()
        flushSymbol(inside: false)
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
            case .attached: break
            }
        }
        return collapse(out)
    }
}
