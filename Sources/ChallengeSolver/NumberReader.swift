import Foundation

/// A number read from a challenge: its value, how sure the reader is, and where it sits among the segments.
public struct ReadNumber: Sendable, Equatable {
    public var value: Decimal
    /// 1 for clean words or digits; lower for misspellings, repairs and guesses.
    public var certainty: Double
    /// What the reader had to repair or guess, for the decline reason.
    public var notes: [String]
    /// Dropped as a distractor (a self-correction).
    public var dropped: Bool = false
    /// A tens word and a unit word read as one number across an operator symbol ("tHiRtY / TwO" = 32): the symbol
    /// and the two numbers it would separate if it were the operator (30 and 2).
    public var acrossSymbol: (symbol: Character, tens: Decimal, unit: Decimal)?

    public init(value: Decimal, certainty: Double, notes: [String], dropped: Bool = false) {
        self.value = value
        self.certainty = certainty
        self.notes = notes
        self.dropped = dropped
    }

    public static func == (lhs: ReadNumber, rhs: ReadNumber) -> Bool {
        lhs.value == rhs.value && lhs.certainty == rhs.certainty && lhs.notes == rhs.notes
            && lhs.dropped == rhs.dropped && lhs.acrossSymbol?.symbol == rhs.acrossSymbol?.symbol
            && lhs.acrossSymbol?.tens == rhs.acrossSymbol?.tens && lhs.acrossSymbol?.unit == rhs.acrossSymbol?.unit
    }
}

/// A normalised challenge: words (collapsed), numbers and operator symbols, in text order.
public enum Segment: Sendable, Equatable {
    case word(String)
    case number(ReadNumber)
    /// An operator symbol standing alone (`-`, `*`, `x` …).
    case symbol(Character)
    /// A `*`, `+` or `×` stuck to a word (see `ChallengeToken.attached`).
    case attached(Character, inside: Bool)
}

/// Reads number words out of normalised tokens, re-joining split fragments ("tW eN tY"), and assembles number
/// phrases ("twenty three", "two point five"), repairing the repetitions and self-corrections challenges use.
public enum NumberReader {
    /// Words that mark the number before them as a self-correction ("thirty? noo oops um twenty three").
    static let corrections: Set<String> = ["ops", "wait", "imean", "sory", "actualy", "corection", "scratchthat"]
    /// Words that correct the number before them only when another number follows ("twenty six? um, no, sixteen").
    static let weakCorrections: Set<String> = ["no", "nope", "nah"]

    private enum Item: Equatable {
        case word(String)
        case number(NumberLexicon.Match)
        case digits(Decimal)
        case symbol(Character)
        case attached(Character, inside: Bool)
    }

    /// The segments of `text`.
    public static func segments(_ text: String) -> [Segment] {
        phrases(items(ChallengeNormalizer.tokens(text)))
    }

    /// The numbers of `text` that survive the repairs, in order.
    public static func numbers(_ text: String) -> [Decimal] {
        segments(text).compactMap {
            if case .number(let number) = $0, !number.dropped { return number.value }
            return nil
        }
    }

    /// Tokens to items: fragment runs that spell a number word become numbers, the rest stay words (collapsed).
    ///
    /// Attached symbols are transparent inside a run (one inside a number word is noise and dropped), and so is a
    /// lone symbol that only separates fragments of one number word ("Tw * EnTy", "fO - uR"): crossing it is
    /// allowed when neither side is a number word of its own ("twenty - five" stays two words and a symbol). A lone
    /// "x" is a letter when it completes a number word ("si x") and a multiplication sign otherwise.
    private static func items(_ tokens: [ChallengeToken]) -> [Item] {
        var out: [Item] = []
        var index = 0
        while index < tokens.count {
            switch tokens[index] {
            case .digits(let value):
                out.append(.digits(value))
                index += 1
                continue
            case .symbol(let symbol):
                out.append(.symbol(symbol))
                index += 1
                continue
            case .attached(let symbol, let inside):
                out.append(.attached(symbol, inside: inside))
                index += 1
                continue
            case .word:
                break
            }
            var run: [String] = []
            var positions: [Int] = []
            var crossings: [Int: Character] = [:]
            var probe = index
            var pending: Character?
            while probe < tokens.count, run.count < maxRun {
                switch tokens[probe] {
                case .word(let word):
                    if let pending { crossings[run.count] = pending }
                    pending = nil
                    run.append(word)
                    positions.append(probe)
                case .symbol("x"):
                    if let pending { crossings[run.count] = pending }
                    pending = nil
                    run.append("x")
                    positions.append(probe)
                case .attached: break
                case .symbol(let symbol): pending = pending ?? symbol
                case .digits: probe = tokens.count
                }
                probe += 1
            }
            if let (match, length) = number(in: run, crossings: crossings) {
                let spelled = run[..<length].joined()
                if case .word(let previous) = out.last,
                    NumberLexicon.endsOrdinaryWord(previous, spelled, Array(run[length...].prefix(2)))
                {
                    out[out.count - 1] = .word(ChallengeNormalizer.collapse(previous + spelled))
                } else {
                    out.append(.number(match))
                }
                index = positions[length - 1] + 1
            } else if let (match, rest) = NumberLexicon.withFold(ChallengeNormalizer.collapse(run[0]))
                ?? NumberLexicon.withUnit(ChallengeNormalizer.collapse(run[0]))
            {
                out.append(.number(match))
                out.append(.word(rest))
                index += 1
            } else {
                out.append(.word(ChallengeNormalizer.collapse(run[0])))
                index += 1
            }
        }
        return out
    }

    /// At most this many fragments make one number word ("Nn Ii Nn Ee Tt Ee Ee Nn" is eight).
    static let maxRun = 8

    /// The number word starting `run`, crossing lone symbols only between fragments of one word.
    ///
    /// A symbol between a tens word and its unit ("twenty - five") is not crossed here: the two stay words and the
    /// compound is read across the symbol later, with its split reading. Any other symbol with a number word on one
    /// side that the word it splits completes ("six - ty", "eight * een", "fif / teen", "four - teen") is crossed:
    /// read as two words the rest would be a scrap or the wrong number (6 for sixty, 10 for fifteen). When both
    /// sides are number words ("six - teen": 6 and 10) the split reading is kept too, as for a compound.
    private static func number(in run: [String], crossings: [Int: Character]) -> (NumberLexicon.Match, Int)? {
        guard var (match, length) = numberAt(run) else { return nil }
        var split: NumberLexicon.Match.Split?
        var crossed = false
        let valid = crossings.keys.sorted().filter { $0 > 0 && $0 < length }.allSatisfy { cut in
            let left = NumberLexicon.exact(ChallengeNormalizer.collapse(run[..<cut].joined()))
            let right = NumberLexicon.exact(ChallengeNormalizer.collapse(run[cut..<length].joined()))
            guard left != nil || right != nil else { return true }
            guard match.kind != .point, left?.kind != .point, right?.kind != .point,
                !(left?.kind == .tens && right.map { $0.kind == .unit || $0.kind == .compound } == true)
            else { return false }
            crossed = true
            if let left, let right, left.value != match.value, let symbol = crossings[cut] {
                split = split ?? .init(symbol: symbol, left: left.value, right: right.value)
            }
            return true
        }
        if valid {
            if crossed {
                match.certainty *= 0.85
                match.split = split
                match.note = [match.note, "a symbol inside \(match.value) treated as noise"].compactMap { $0 }
                    .joined(separator: "; ")
            }
            return (match, length)
        }
        guard let first = crossings.keys.min(), first > 0 else { return nil }
        return numberAt(Array(run[..<first]))
    }

    /// Whether `letters` begin a unit or a common word, so a fragment is more likely its start than a number's end
    /// ("n" + "ewtons").
    static func startsWord(_ letters: String) -> Bool {
        let collapsed = ChallengeNormalizer.collapse(letters)
        return Quantity.of(collapsed) != nil
            || collapsed.count >= 3
                && [
                    "and", "new", "not", "nop", "net", "each", "ever", "eve", "eat", "ext", "exe", "ear",
                    // Cue words a stray letter may start ("eight t imes", "seven s lows").
                    "tim", "tot", "oth", "slo", "spe", "twi", "sum",
                ].contains {
                    collapsed.hasPrefix($0)
                }
    }

    /// The number word that starts `run` (the longest exact span first, then repairs) and how many fragments it
    /// uses.
    private static func numberAt(_ run: [String]) -> (NumberLexicon.Match, Int)? {
        var joined = ""
        let prefixes = run.map { fragment -> String in
            joined += fragment
            return ChallengeNormalizer.collapse(joined)
        }
        func candidate(_ length: Int) -> String { prefixes[length - 1] }
        // Number words (and "point", and the accepted misspellings) start with one of these letters.
        if let first = prefixes.first?.first, NumberLexicon.initials.contains(first) {
            for length in stride(from: run.count, through: 1, by: -1) {
                guard let match = NumberLexicon.exact(candidate(length)) else { continue }
                // A leading fragment that adds nothing ("ss" + "seven") stays a word of its own.
                if length >= 2,
                    NumberLexicon.exact(ChallengeNormalizer.collapse(run[1..<length].joined()))?.value == match.value
                {
                    return nil
                }
                var used = length
                // A trailing fragment that adds no letter is the doubled last letter ("ni ne e") unless it starts
                // the next word ("seven n ewtons"); dropping it must not leave a misspelling ("f i v e" is five).
                while used > 1, let shorter = NumberLexicon.exact(candidate(used - 1)), shorter.value == match.value,
                    shorter.certainty >= match.certainty,
                    startsWord(run[used - 1] + run[used..<min(used + 3, run.count)].joined())
                {
                    used -= 1
                }
                return (match, used)
            }
        }
        // Repairs stay inside one fragment: across fragments they find numbers in ordinary words ("th ve").
        if let match = NumberLexicon.fuzzy(candidate(1)) ?? NumberLexicon.junkPrefixed(candidate(1)) {
            return (match, 1)
        }
        guard run.count >= 2 else { return nil }
        // A misspelt tens word split over fragments ("ThWeN tY"): one edit from "twenty", no number inside it.
        for length in stride(from: min(3, run.count), through: 2, by: -1) {
            guard let match = NumberLexicon.splitTens(candidate(length)) else { continue }
            let inner = (0..<length).contains { start in
                (start + 1...length).contains {
                    NumberLexicon.exact(ChallengeNormalizer.collapse(run[start..<$0].joined())) != nil
                }
            }
            if !inner { return (match, length) }
        }
        for length in stride(from: min(3, run.count), through: 2, by: -1) {
            guard let match = NumberLexicon.garbledTeen(candidate(length)) else { continue }
            // A later fragment that is a number on its own wins over a repair that swallows it ("at thirty").
            let laterExact = (1..<run.count).contains { start in
                (start + 1...run.count).contains {
                    NumberLexicon.exact(ChallengeNormalizer.collapse(run[start..<$0].joined())) != nil
                }
            }
            return laterExact ? nil : (match, length)
        }
        return nil
    }

    /// Items to segments: tens + unit, repeated tens words, stray units, "point five" decimals, self-corrections.
    private static func phrases(_ items: [Item]) -> [Segment] {
        var out: [Segment] = []
        var index = 0
        while index < items.count {
            switch items[index] {
            case .word(let word):
                out.append(.word(word))
                index += 1
            case .symbol(let symbol):
                out.append(.symbol(symbol))
                index += 1
            case .attached(let symbol, let inside):
                out.append(.attached(symbol, inside: inside))
                index += 1
            case .digits(let value):
                var number = ReadNumber(value: value, certainty: 1, notes: [])
                index = decimalTail(items, after: index + 1, into: &number)
                out.append(.number(number))
            case .number(let first) where first.kind == .point:
                out.append(.word("point"))
                index += 1
            case .number(let first):
                var number = ReadNumber(
                    value: Decimal(first.value), certainty: first.certainty, notes: first.note.map { [$0] } ?? [])
                if let split = first.split {
                    number.acrossSymbol = (split.symbol, Decimal(split.left), Decimal(split.right))
                }
                var next = index + 1
                if first.kind == .tens {
                    next = compoundTail(items, tens: first, after: next, into: &number)
                } else if first.kind == .compound, next < items.count, case .number(let stray) = items[next],
                    stray.kind == .unit, stray.value > 0
                {
                    // "tW/eN tY TwO ThReE": a stray unit after a fused compound replaces its unit.
                    number.value = Decimal(first.value / 10 * 10 + stray.value)
                    number.certainty *= 0.85
                    number.notes.append("stray unit word")
                    next += 1
                }
                next = decimalTail(items, after: next, into: &number)
                out.append(.number(number))
                index = next
            }
        }
        markCorrections(&out)
        return out
    }

    /// Extends a tens word: repeated tens ("twenty twenty three" → the last), a unit ("thirty / two" → 32, a lone
    /// noise symbol in between allowed) and a stray extra unit ("twenty two three" → 23).
    private static func compoundTail(
        _ items: [Item], tens: NumberLexicon.Match, after start: Int, into number: inout ReadNumber
    ) -> Int {
        var next = start
        var tensValue = tens.value
        while next < items.count, case .number(let again) = items[next], again.kind == .tens {
            tensValue = again.value
            number.certainty *= min(0.9, again.certainty)
            number.notes.append("repeated tens word")
            next += 1
        }
        // "twenty twentythree": a repeated tens word before a fused compound.
        if next < items.count, case .number(let fused) = items[next], fused.kind == .compound,
            fused.value / 10 * 10 == tensValue
        {
            number.value = Decimal(fused.value)
            number.certainty *= min(0.9, fused.certainty)
            number.notes.append("repeated tens word")
            return next + 1
        }
        number.value = Decimal(tensValue)
        var unitIndex = skippingScrap(items, from: next)
        var acrossSymbol: Character?
        // The symbol may have a scrap on either side ("thirty - y fo ur", "thirty y - four").
        if unitIndex + 1 < items.count, let symbol = separatingSymbol(items[unitIndex]) {
            let after = skippingScrap(items, from: unitIndex + 1)
            if after < items.count, case .number(let unit) = items[after], unit.kind == .unit, unit.value > 0 {
                unitIndex = after
                acrossSymbol = symbol
            }
        }
        guard unitIndex < items.count, case .number(let unit) = items[unitIndex], unit.kind == .unit, unit.value > 0
        else { return next }
        number.value = Decimal(tensValue + unit.value)
        number.certainty *= unit.certainty * (acrossSymbol != nil ? 0.85 : 1)
        if let acrossSymbol {
            number.notes.append("'\(acrossSymbol)' inside a compound treated as noise")
            number.acrossSymbol = (acrossSymbol, Decimal(tensValue), Decimal(unit.value))
        }
        if let note = unit.note { number.notes.append(note) }
        next = unitIndex + 1
        if next < items.count, case .number(let stray) = items[next], stray.kind == .unit, stray.value > 0 {
            number.value = Decimal(tensValue + stray.value)
            number.certainty *= 0.85
            number.notes.append("stray unit word")
            next += 1
        }
        return next
    }

    /// The operator of a symbol item that could separate a tens word from its unit ("thirty / two", "thirty* two").
    private static func separatingSymbol(_ item: Item) -> Character? {
        switch item {
        case .symbol(let symbol): symbol
        case .attached(let symbol, inside: false): symbol
        default: nil
        }
    }

    /// "point five" after a number: adds the tenth.
    private static func decimalTail(_ items: [Item], after start: Int, into number: inout ReadNumber) -> Int {
        let pointIndex = skippingScrap(items, from: start)
        guard pointIndex < items.count, case .number(let point) = items[pointIndex], point.kind == .point else {
            return start
        }
        var digitIndex = skippingScrap(items, from: pointIndex + 1)
        // "point f / five": a scrap and a lone symbol inside the digit word.
        if digitIndex < items.count, case .symbol = items[digitIndex] {
            digitIndex = skippingScrap(items, from: digitIndex + 1)
        } else if digitIndex + 1 < items.count, case .word(let scrap) = items[digitIndex], scrap.count <= 2,
            case .symbol = items[digitIndex + 1]
        {
            digitIndex = skippingScrap(items, from: digitIndex + 2)
        }
        guard digitIndex < items.count, case .number(let digit) = items[digitIndex], digit.kind == .unit else {
            return start
        }
        number.value += Decimal(digit.value) / 10
        number.certainty *= digit.certainty
        return digitIndex + 1
    }

    /// The index after one scrap fragment of at most two letters ("f" of "f FiVe"), if `start` holds one and a
    /// number word follows it.
    private static func skippingScrap(_ items: [Item], from start: Int) -> Int {
        guard start + 1 < items.count, case .word(let word) = items[start], word.count <= 2,
            case .number = items[start + 1]
        else { return start }
        return start + 1
    }

    /// Drops a number followed closely (before the next number) by a self-correction ("thirty? noo oops", "wW aI t
    /// No"), or by a "no" that another number follows ("twenty six? um, no, sixteen").
    private static func markCorrections(_ segments: inout [Segment]) {
        let numbers = segments.indices.filter {
            if case .number = segments[$0] { return true }
            return false
        }
        for (position, target) in numbers.enumerated() where position + 1 < numbers.count {
            let next = numbers[position + 1]
            var words: [String] = []
            for index in (target + 1)..<next {
                if case .word(let word) = segments[index] { words.append(word) }
            }
            let joined = ChallengeNormalizer.collapse(words.joined())
            // The correction comes first, after fillers that may be split too ("l IkE uM nO", "OoOoP p Ss").
            let meaningful = leadingFillers.stringByReplacingMatches(
                in: joined, range: NSRange(joined.startIndex..., in: joined), withTemplate: "")
            // "ops" that ends a cue word with the fragment before it is no "oops" ("dR oPs bY": drops by).
            let strong =
                words.prefix(5).enumerated().contains { offset, word in
                    guard word.hasPrefix("ops") else { return corrections.contains(word) }
                    guard offset > 0 else { return true }
                    let joined = ChallengeNormalizer.collapse(words[offset - 1] + word)
                    return !OperationCues.all.contains { $0.text.hasPrefix(joined) }
                }
                // A lone "no" after nothing but fillers and scraps, another number soon after ("fifty? bzzt um no
                // sixty", "ErR-m nO").
                || next - target <= 8
                    && words.prefix(4).enumerated().contains { offset, word in
                        weakCorrections.contains(word)
                            && words[..<offset].allSatisfy {
                                ($0.count <= 4 || OperationCues.fillers.contains($0)) && $0 != "and"
                                    && ($0.count <= 2 || Quantity.of($0) == nil)
                            }
                            && !(offset + 1 < words.count
                                && ["not", "now", "nor", "nut", "note", "non", "nopush"].contains {
                                    ChallengeNormalizer.collapse(word + words[offset + 1]).hasPrefix($0)
                                })
                    }
                || ["wait", "sory", "imean", "actualy", "corection", "scratchthat"].contains {
                    joined.prefix(20).contains($0)
                } || meaningful.hasPrefix("ops")
            let weak =
                meaningful.count <= 14 && weakCorrections.contains { meaningful.hasPrefix($0) }
                && !["not", "now", "nor", "net", "nut"].contains { meaningful.hasPrefix($0) }
                && next - target <= 8
            guard strong || weak, case .number(var number) = segments[target] else { continue }
            number.dropped = true
            number.notes.append("self-corrected")
            segments[target] = .number(number)
        }
    }

    // The pattern is fixed and valid.
    static let leadingFillers = try! NSRegularExpression(
        pattern: "^(uhm|um|uh|hm|erm|er|ah|like|so|oh|lobster|lob|lo|st|blah|ha|swoth|glar|lxq|lxobqstwer|physxics)+")
}
