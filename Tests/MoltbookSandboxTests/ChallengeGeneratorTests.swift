import ChallengeSolver
import Foundation
import MoltbookSandbox
import Testing

@Suite struct ChallengeGeneratorTests {
    /// Letters only, lowercased, runs of a repeated letter collapsed: what survives every obfuscation level.
    static func skeleton(_ text: String) -> String {
        var out = ""
        for character in text.lowercased() where character.isLetter && character.isASCII {
            if out.last != character { out.append(character) }
        }
        return out
    }

    static func numberWords(_ value: Decimal) -> String {
        let ones = [
            "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
            "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
        ]
        let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
        let doubled = NSDecimalNumber(decimal: value * 2).intValue
        let whole = doubled / 2
        var words = whole < 20 ? ones[whole] : tens[whole / 10] + (whole % 10 == 0 ? "" : " " + ones[whole % 10])
        if doubled % 2 == 1 { words += " point five" }
        return words
    }

    /// At every level the recorded answer is the operation applied to the operands, in the documented ranges.
    @Test(arguments: 0...3)
    func answersMatchOperations(level: Int) {
        var generator = ChallengeGenerator(seed: 42)
        var seen = Set<ArithmeticOperation>()
        for _ in 0..<300 {
            let challenge = generator.next(level: level)
            #expect(challenge.level == level)
            seen.insert(challenge.operation)
            let (a, b) = (challenge.operands[0], challenge.operands[1])
            let expected: Decimal
            switch challenge.operation {
            case .add: expected = a + b
            case .subtract: expected = a - b
            case .multiply: expected = a * b
            case .divide: expected = a / b
            }
            #expect(challenge.answer == expected)
            #expect(a >= 2 && a <= 85.5 && b >= 2 && b <= 35)
            #expect(challenge.answer >= 0)
            if challenge.operation == .divide {
                #expect(challenge.answer == Decimal(NSDecimalNumber(decimal: challenge.answer).intValue))
            }
            #expect(challenge.formattedAnswer.range(of: #"^\d+\.\d\d$"#, options: .regularExpression) != nil)
        }
        #expect(seen == Set(ArithmeticOperation.allCases))
    }

    /// Level 0 is the plain text, which spells both operands as number words in order.
    @Test func plainTextSpellsOperands() {
        var generator = ChallengeGenerator(seed: 7)
        for _ in 0..<200 {
            let challenge = generator.next(level: 0)
            #expect(challenge.text == challenge.plainText)
            #expect(challenge.text == challenge.text.lowercased())
            let words = challenge.text.split { !$0.isLetter }.map(String.init)
            let first = Self.numberWords(challenge.operands[0]).split(separator: " ").map(String.init)
            let second = Self.numberWords(challenge.operands[1]).split(separator: " ").map(String.init)
            let firstAt = Self.position(of: first, in: words, from: 0)
            #expect(firstAt != nil, "\(first) in \(challenge.text)")
            if let firstAt {
                #expect(Self.position(of: second, in: words, from: firstAt + first.count) != nil)
            }
        }
    }

    /// The index where `phrase` starts in `words` at or after `start`, as whole words.
    static func position(of phrase: [String], in words: [String], from start: Int) -> Int? {
        guard phrase.count <= words.count, start <= words.count - phrase.count else { return nil }
        return (start...(words.count - phrase.count)).first { Array(words[$0..<($0 + phrase.count)]) == phrase }
    }

    /// Levels 1–2 only add case, symbols, splits and doubled letters: the letter skeleton equals the plain text's.
    @Test(arguments: 1...2)
    func noiseKeepsTheWords(level: Int) {
        var generator = ChallengeGenerator(seed: UInt64(level) * 1000)
        var sawNoise = false
        for _ in 0..<200 {
            let challenge = generator.next(level: level)
            #expect(Self.skeleton(challenge.text) == Self.skeleton(challenge.plainText))
            #expect(challenge.text != challenge.plainText.lowercased() || challenge.text.isEmpty)
            if challenge.text.contains(where: { "]^/~{}[|<>".contains($0) }) { sawNoise = true }
        }
        #expect(sawNoise)
    }

    /// Level 3 keeps the problem's words in order (fillers and framing only add words) and uses fillers.
    @Test func level3AddsFillersAroundTheProblem() {
        var generator = ChallengeGenerator(seed: 3)
        var sawFiller = false
        for _ in 0..<200 {
            let challenge = generator.next(level: 3)
            var remaining = Substring(Self.skeleton(challenge.text))
            var previous: Character?
            for word in challenge.plainText.split(separator: " ") {
                var piece = Self.skeleton(String(word))
                guard !piece.isEmpty else { continue }
                // A letter shared across a word boundary collapses into one.
                if piece.first == previous { piece.removeFirst() }
                if let range = remaining.range(of: piece) {
                    remaining = remaining[range.upperBound...]
                } else {
                    Issue.record("\(word) missing from \(challenge.text)")
                }
                previous = piece.last ?? previous
            }
            let words = Set(challenge.text.lowercased().split(separator: " ").map { Self.skeleton(String($0)) })
            if !words.isDisjoint(with: ["um", "uh", "uhm", "hm", "er", "like"]) { sawFiller = true }
        }
        #expect(sawFiller)
    }

    /// No level ever emits a standalone operator-like token (`-`, `+`, `*`, `/`) that a grader could read as an operator.
    @Test(arguments: 1...3)
    func noStandaloneOperators(level: Int) {
        var generator = ChallengeGenerator(seed: 99)
        for _ in 0..<300 {
            let text = generator.next(level: level).text
            let tokens = text.split(separator: " ").map(String.init)
            #expect(!tokens.contains { ["-", "+", "*", "/"].contains($0) }, "\(text)")
            #expect(!text.contains("*") && !text.contains("+"))
        }
    }

    /// Same seed, same challenges; different seeds differ.
    @Test func generatorIsDeterministic() {
        var a = ChallengeGenerator(seed: 5)
        var b = ChallengeGenerator(seed: 5)
        var c = ChallengeGenerator(seed: 6)
        let first = (0..<50).map { _ in a.next(level: 3).text }
        #expect(first == (0..<50).map { _ in b.next(level: 3).text })
        #expect(first != (0..<50).map { _ in c.next(level: 3).text })
    }
}
