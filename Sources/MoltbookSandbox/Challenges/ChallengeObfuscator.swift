import Determinism

/// One word of a challenge before obfuscation.
struct ChallengeToken: Sendable {
    var text: String
    /// Part of a number phrase ("twenty", "three", "point", "five"): fillers never go between these.
    var isNumber: Bool
}

/// Turns a plain word list into the noisy text style of real challenges, level by level.
struct ChallengeObfuscator {
    var random: SeededRandom

    /// Noise symbols, weighted roughly by how often real texts use them.
    private static let noise: [Character] = Array("]]]]]]^^^^//~~}|.<{[\\>'")
    /// Symbols that must never sit next to a number word (they could read as an operator).
    private static let operatorLike: Set<Character> = ["-", "/", "*", "+"]
    private static let endings = ["?", "??", "<?", "~?", "?]", " ?", "?>"]

    mutating func obfuscate(_ input: [ChallengeToken], level: Int) -> String {
        guard level > 0 else { return input.map(\.text).joined(separator: " ") }
        var tokens = input.map { token -> ChallengeToken in
            var token = token
            token.text = token.text.filter { $0.isLetter || $0 == "?" || $0 == "<" || $0 == ">" }
            return token
        }
        let endsWithQuestion = tokens.last?.text.hasSuffix("?") ?? false
        if endsWithQuestion, var last = tokens.popLast() {
            last.text.removeLast()
            tokens.append(last)
        }
        if level >= 3 { tokens = addFillers(tokens) }

        var words: [String] = []
        var caseOffset = random.int(in: 0...1)
        for (index, token) in tokens.enumerated() {
            var text = token.text
            if level >= 2, text.count >= 3, random.chance(0.35) { text = doubled(text) }
            if !random.chance(0.3) { caseOffset = random.int(in: 0...1) }
            text = alternatingCase(text, offset: &caseOffset)
            if level >= 2, text.count >= 4, random.chance(0.3) { text = split(text) }
            if index == 0, random.chance(0.8) {
                text += "]"
            } else if random.chance(0.35) {
                text = addNoise(text, nearNumber: token.isNumber)
            }
            words.append(text)
        }
        var result = words.joined(separator: " ")
        result += endsWithQuestion ? random.pick(Self.endings) : ""
        if level >= 3, random.chance(0.2) { result += " " + random.pick(ChallengeTemplate.junk) }
        return result
    }

    /// Inserts framing, fillers and junk between words, never inside a number phrase.
    private mutating func addFillers(_ tokens: [ChallengeToken]) -> [ChallengeToken] {
        var out: [ChallengeToken] = []
        if random.chance(0.5) {
            let framing =
                random.chance(0.2)
                ? random.pick(ChallengeTemplate.distractorFramings) : random.pick(ChallengeTemplate.framings)
            out += framing.split(separator: " ").map { ChallengeToken(text: String($0), isNumber: false) }
        }
        var inserted = 0
        for (index, token) in tokens.enumerated() {
            let insideNumber = token.isNumber && index > 0 && tokens[index - 1].isNumber
            if !insideNumber, index > 0, inserted < 3, random.chance(0.2) {
                let word =
                    random.chance(0.8) ? random.pick(ChallengeTemplate.fillers) : random.pick(ChallengeTemplate.junk)
                out.append(ChallengeToken(text: word, isNumber: false))
                inserted += 1
            }
            out.append(token)
        }
        return out
    }

    /// Doubles some letters ("lobster" → "loobsster"); the grader's reading is unchanged.
    private mutating func doubled(_ word: String) -> String {
        var out = ""
        for character in word {
            out.append(character)
            if character.isLetter, random.chance(0.35) { out.append(character) }
        }
        return out
    }

    /// Alternates upper and lower case over letters, continuing the phase across words.
    private func alternatingCase(_ word: String, offset: inout Int) -> String {
        var out = ""
        for character in word {
            guard character.isLetter else {
                out.append(character)
                continue
            }
            out += offset % 2 == 0 ? character.uppercased() : character.lowercased()
            offset += 1
        }
        return out
    }

    /// Splits a word into two fragments ("twenty" → "tW eNtY").
    private mutating func split(_ word: String) -> String {
        let characters = Array(word)
        let cut = random.int(in: 1...(characters.count - 2))
        return String(characters[..<cut]) + " " + String(characters[cut...])
    }

    /// Puts one noise symbol before, after or inside a word.
    private mutating func addNoise(_ word: String, nearNumber: Bool) -> String {
        var symbol = random.pick(Self.noise)
        var characters = Array(word)
        let position = random.int(in: 0...2)
        if position == 1, characters.count >= 2 {
            let at = random.int(in: 1...(characters.count - 1))
            if random.chance(0.3) { symbol = "-" }
            characters.insert(symbol, at: at)
            return String(characters)
        }
        if nearNumber, Self.operatorLike.contains(symbol) { symbol = "]" }
        return position == 0 ? String(symbol) + word : word + String(symbol)
    }
}
