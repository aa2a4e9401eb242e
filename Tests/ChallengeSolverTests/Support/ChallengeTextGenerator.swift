import ChallengeSolver
import Determinism
import Foundation

extension SeededRandom {
    /// True with `probability`, to a millionth, always drawing once (unlike `chance(_:)`): the frozen held-out
    /// corpus was generated with this draw.
    mutating func roll(_ probability: Double) -> Bool {
        Double(next() % 1_000_000) / 1_000_000 < probability
    }
}

/// A lobster-math word problem with slots: `{a}` and `{b}` are the operands in text order, `{d}` a distractor
/// number the answer ignores. The answer is `operation` applied to a and b (for `implicit`, to a and that
/// factor).
struct ChallengeTemplate: Sendable {
    var family: String
    var operation: ArithmeticOperation
    var text: String
    /// Range of the second operand (counts are small).
    var second: ClosedRange<Int> = 2...19
    /// A scaling word gives the second operand ("doubles" → 2); the text has no `{b}`.
    var implicit: Int?
    /// The distractor's value range.
    var distractor: ClosedRange<Int> = 2...9
    /// Subtraction of the smaller from the larger: the operands may come in either order.
    var absolute = false

    init(
        _ family: String, _ operation: ArithmeticOperation, _ text: String, second: ClosedRange<Int> = 2...19,
        implicit: Int? = nil, distractor: ClosedRange<Int> = 2...9, absolute: Bool = false
    ) {
        self.family = family
        self.operation = operation
        self.text = text
        self.second = second
        self.implicit = implicit
        self.distractor = distractor
        self.absolute = absolute
    }
}

/// One generated challenge and its true answer.
struct GeneratedText: Sendable, Codable, Equatable {
    var name: String
    var text: String
    var expected: String
    var plain: String
}

/// Writes challenges in the style of the real captured texts (challenges.md): the number words, alternating case,
/// doubled letters, words split into fragments, noise symbols before, after and inside words and standing alone
/// between clauses, fillers, junk, distractor numbers and self-corrections.
///
/// Noise never stands tightly between the two operands as a lone `+ - * / x` (there the server reads it as the
/// operator), so every text has one true answer.
struct ChallengeTextGenerator {
    var random: SeededRandom
    var templates: [ChallengeTemplate]
    /// Fillers, junk and self-correction words to draw from (held-out sets use other ones).
    var fillers = ["um", "umm", "uh", "uhm", "hmm", "errr", "like"]
    var junk = ["lxobqstwer", "lxq", "<ha>", "blah", "glarr", "swooooth", "phyysxics", "lo.b st errr", "velooocityyy"]
    var corrections = ["noo oops um", "oops no", "wait no", "um no"]
    var noise: [Character] = Array("]]]]]^^^^///--~~~}|.<{[\\>'")
    /// How often the noise on an ordinary word is a `*` or `+` (rare in real texts, where these are mostly
    /// operators).
    var operatorNoise = 0.06

    init(seed: UInt64, templates: [ChallengeTemplate]) {
        random = SeededRandom(seed: seed)
        self.templates = templates
    }

    static let units = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

    /// The words of `value` (2…99, or x.5 as "… point five").
    static func words(_ value: Decimal) -> [String] {
        let doubled = NSDecimalNumber(decimal: value * 2).intValue
        let whole = doubled / 2
        var out: [String]
        if whole < 20 {
            out = [units[whole]]
        } else {
            out = whole % 10 == 0 ? [tens[whole / 10]] : [tens[whole / 10], units[whole % 10]]
        }
        if doubled % 2 == 1 { out += ["point", "five"] }
        return out
    }

    /// The next challenge.
    mutating func next(index: Int) -> GeneratedText {
        let template = random.pick(templates)
        var a = Decimal(random.roll(0.7) ? random.int(in: 20...45) : random.int(in: 2...85))
        var b = Decimal(template.implicit ?? random.int(in: template.second))
        if template.operation == .subtract, !template.absolute, a <= b { a = b + Decimal(random.int(in: 3...40)) }
        if template.operation == .divide {
            let quotient = random.int(in: 2...(85 / NSDecimalNumber(decimal: b).intValue))
            a = b * Decimal(quotient)
        }
        if template.operation != .divide, template.implicit == nil, random.roll(0.06) { a += 0.5 }
        if template.absolute, random.roll(0.5) { swap(&a, &b) }
        let exact = template.operation.result(a, b)
        let answer = template.absolute && template.operation == .subtract ? abs(exact) : exact
        let distractor = Decimal(random.int(in: template.distractor))
        var words: [Word] = []
        for raw in template.text.split(separator: " ") {
            let piece = String(raw)
            if let slot = ["{a}", "{b}", "{d}"].first(where: { piece.hasPrefix($0) }) {
                let value = slot == "{a}" ? a : slot == "{b}" ? b : distractor
                var number = Self.words(value).map { Word(text: $0, kind: .number) }
                if slot == "{a}", random.roll(0.05) {
                    // A self-correction: a wrong number first, then the right one.
                    let wrong = Self.words(Decimal(random.int(in: 20...60))).map { Word(text: $0, kind: .number) }
                    let fix = random.pick(corrections).split(separator: " ").map {
                        Word(text: String($0), kind: .filler)
                    }
                    number = wrong + [Word(text: "?", kind: .punctuation)] + fix + number
                }
                number[number.count - 1].text += String(piece.dropFirst(3))
                words += number
            } else {
                words.append(Word(text: piece, kind: Self.unitWords.contains(piece) ? .unit : .plain))
            }
        }
        let plain = words.map(\.text).joined(separator: " ")
        let text = obfuscate(words)
        return GeneratedText(
            name: "#\(index) \(template.family)", text: text, expected: AnswerFormat.twoDecimals(answer), plain: plain)
    }

    static let unitWords: Set<String> = [
        "newtons", "newtons,", "meters", "centimeters", "per", "second", "second,", "seconds", "seconds,", "cm/s",
        "kilograms", "kilograms,", "minute", "nootons", "neutons", "cm", "m", "newton", "meter",
    ]

    struct Word {
        enum Kind { case plain, number, unit, filler, punctuation }
        var text: String
        var kind: Kind
    }

    // MARK: - Obfuscation

    mutating func obfuscate(_ input: [Word]) -> String {
        var words = input
        // Fillers and junk between words, never inside a number phrase.
        var out: [Word] = []
        let framed = random.roll(0.15)
        if framed {
            out += random.pick(["um so", "okay lobster math", "in the dominance fight", "this lobster problem"])
                .split(separator: " ").map { Word(text: String($0), kind: .plain) }
        }
        for (index, word) in words.enumerated() {
            let insideNumber = word.kind == .number && index > 0 && words[index - 1].kind == .number
            if !insideNumber, index > 0, random.roll(0.12) {
                out.append(Word(text: random.roll(0.8) ? random.pick(fillers) : random.pick(junk), kind: .filler))
            }
            out.append(word)
        }
        words = out
        let allDoubled = random.roll(0.12)
        let pairSplit = random.roll(0.06)
        let separator: Character? = random.roll(0.1) ? random.pick(Array("]]~^|")) : nil
        let clauseNoise = random.roll(0.35)
        var pieces: [String] = []
        var phase = random.int(in: 0...1)
        for (index, word) in words.enumerated() {
            var text = word.text
            if word.kind == .punctuation {
                pieces[pieces.count - 1] += text
                continue
            }
            let trailing = text.last.map { ",?".contains($0) } == true ? String(text.removeLast()) : ""
            if word.kind == .number, random.roll(0.04) { text = misspelt(text) }
            if allDoubled || (text.count >= 3 && random.roll(0.3)) { text = doubled(text, all: allDoubled) }
            if random.roll(0.35) { phase = random.int(in: 0...1) }
            text = alternating(text, phase: &phase)
            if pairSplit, text.count >= 3 {
                text = pairs(text)
            } else if text.count >= 4, random.roll(0.28) {
                text = split(text)
            }
            if random.roll(0.3) { text = noisy(text, kind: word.kind) }
            text += trailing
            if let separator { text += random.roll(0.8) ? " \(separator)" : String(separator) }
            pieces.append(text)
            // A lone symbol between clauses, never next to a number or a unit (where it could be the operator).
            let next = index + 1 < words.count ? words[index + 1].kind : .plain
            if clauseNoise, word.kind == .plain || word.kind == .filler, next == .plain || next == .filler,
                random.roll(0.08)
            {
                pieces.append(String(random.pick(Array("-/~]^*|-/"))))
            }
        }
        if !framed, input.first?.text == "a", random.roll(0.8) {
            // The usual opening: "A]" (82 % of the captured texts), sometimes "]A" or "a]".
            pieces[0] = random.pick(["A]", "A]", "A]", "A]", "]A", "a]"])
        }
        var text = pieces.joined(separator: " ")
        if text.hasSuffix("?") {
            text.removeLast()
            text += random.pick(["?", "??", "<?", "~?", "?]", " ?", "?>", "? um"])
        }
        if random.roll(0.12) { text += " " + random.pick(junk) }
        return text
    }

    /// Doubles some letters ("lobster" → "loobsster"), or all of them.
    mutating func doubled(_ word: String, all: Bool) -> String {
        var out = ""
        for character in word {
            out.append(character)
            if character.isLetter, all || random.roll(0.35) { out.append(character) }
        }
        return out
    }

    /// Alternating case over letters, continuing the phase across words.
    func alternating(_ word: String, phase: inout Int) -> String {
        var out = ""
        for character in word {
            guard character.isLetter else {
                out.append(character)
                continue
            }
            out += phase % 2 == 0 ? character.uppercased() : character.lowercased()
            phase += 1
        }
        return out
    }

    /// Splits a word into two or three fragments ("twenty" → "tW eN tY").
    mutating func split(_ word: String) -> String {
        var characters = Array(word)
        let cut = random.int(in: 1...(characters.count - 2))
        characters.insert(" ", at: cut)
        if characters.count >= 7, cut + 2 <= characters.count - 2, random.roll(0.3) {
            let second = random.int(in: (cut + 2)...(characters.count - 2))
            characters.insert(" ", at: second)
        }
        return String(characters)
    }

    /// Every letter pair a fragment ("lobster" → "lO bS tE r").
    func pairs(_ word: String) -> String {
        var out = ""
        for (index, character) in word.enumerated() {
            if index > 0, index % 2 == 0 { out.append(" ") }
            out.append(character)
        }
        return out
    }

    /// One noise symbol before, after or inside the word; inside a number word a spaced `-` or `*` sometimes.
    mutating func noisy(_ word: String, kind: Word.Kind) -> String {
        let isNumber = kind == .number
        // `*` and `+` are sometimes noise too ("FiVe+", "d*"), but only on words where they cannot be the operator.
        let symbol = kind == .plain && random.roll(operatorNoise) ? random.pick(Array("*+")) : random.pick(noise)
        var characters = Array(word)
        switch random.int(in: 0...3) {
        case 0: return String(symbol) + word
        case 1, 2:
            guard characters.count >= 2 else { return word + String(symbol) }
            let at = random.int(in: 1...(characters.count - 1))
            if isNumber, characters[at - 1] != " ", characters[at] != " ", random.roll(0.15) {
                characters.insert(contentsOf: " \(random.pick(["-", "*", "/"])) ", at: at)
            } else {
                characters.insert(symbol, at: at)
            }
            return String(characters)
        default: return word + String(symbol)
        }
    }

    /// One of the misspellings the server accepted (challenges.md).
    func misspelt(_ word: String) -> String {
        let table = [
            "five": "fife", "twenty": "twenny", "thirty": "thrirty", "fourteen": "fourleen", "three": "trhee",
            "seven": "seeven",
        ]
        return table[word] ?? word
    }
}
