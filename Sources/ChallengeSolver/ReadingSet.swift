import Foundation

/// Every plausible reading of a challenge, and the one answer they agree on (if they do).
///
/// A reading picks the operands (which numbers are operands, which are distractors, and why), the role of every
/// operator symbol between them (operator or noise) and the operation the words name. Each number that is not an
/// operand must be explained (a determiner "one", a restatement in the question, "with two claws", a quantity of
/// another kind than the one asked for). The solver answers only when all readings give the same result.
struct ReadingSet: Sendable {
    /// One complete reading of the text.
    struct Choice: Sendable {
        var operands: [Mention]
        var implicitOperand: Int?
        /// Why each other number is not an operand.
        var explained: [String] = []
        var operation: ArithmeticOperation?
        var result: Decimal?
        /// Why this reading gives no answer.
        var problem: String?
        /// The reading is unlikely (an operand looks like a distractor): left out when another reading exists.
        var implausible = false
        var notes: [String] = []
        var certainty: Double = 1

        /// "32 - 9".
        var summary: String {
            let values = operands.map { "\($0.value)" } + (implicitOperand.map { ["\($0)"] } ?? [])
            guard let operation, values.count == 2 else { return values.joined(separator: ", ") }
            return "\(values[0]) \(operation.symbol) \(values[1])"
        }
    }

    /// The readings of the text as the number reader read it.
    var choices: [Choice]
    /// Readings where a symbol inside a compound ("thirty / two") is the operator instead.
    var splitChoices: [Choice]
    var notes: [String]

    /// Reads `text` every plausible way.
    init(_ text: String) {
        let segments = NumberReader.segments(text)
        notes = segments.compactMap {
            if case .number(let number) = $0, number.dropped { return "dropped \(number.value) (self-correction)" }
            return nil
        }
        choices = Self.readings(segments)
        splitChoices = Self.splitVariants(segments).flatMap { Self.readings($0) }
        unread = Self.unreadNumbers(segments)
    }

    /// Words one edit away from a number word that the reader did not read ("thwen ty").
    var unread: [String]

    /// Windows of one to three consecutive words that look like a misspelt number word.
    static func unreadNumbers(_ segments: [Segment]) -> [String] {
        var out: [String] = []
        for start in segments.indices {
            var joined = ""
            for index in start..<min(start + 3, segments.count) {
                guard case .word(let word) = segments[index], !OperationCues.fillers.contains(word) else { break }
                joined = ChallengeNormalizer.collapse(joined + word)
                if let value = NumberLexicon.nearMiss(joined) { out.append("\(joined) (\(value)?)") }
            }
        }
        return out
    }

    /// The agreed answer: the first reading, or why there is none.
    func verdict() -> (choice: Choice?, problem: String?) {
        let plausible = choices.filter { !$0.implausible }
        guard let first = plausible.first else {
            if let doubtful = choices.first { return (doubtful, doubtful.problem) }
            return (nil, "no reading accounts for every number")
        }
        let choices = plausible
        if let word = unread.first {
            return (first, "a word that looks like a number was not read: \(word)")
        }
        if let failing = choices.first(where: { $0.problem != nil }), let problem = failing.problem {
            return (failing, problem)
        }
        let results = Set(choices.compactMap { $0.result.map(AnswerFormat.twoDecimals) })
        if results.count > 1 {
            let listed = choices.map { "\($0.summary) = \($0.result.map(AnswerFormat.twoDecimals) ?? "?")" }
            return (first, "readings disagree: \(listed.joined(separator: " vs "))")
        }
        for split in splitChoices where split.problem == nil {
            if let result = split.result, AnswerFormat.twoDecimals(result) != results.first {
                return (first, "a symbol inside a number could be the operator: \(split.summary)")
            }
        }
        return (first, nil)
    }

    // MARK: - Readings of one segmentation

    /// The complete readings of `segments`.
    static func readings(_ segments: [Segment]) -> [Choice] {
        let mentions = Mention.all(in: segments)
        let plain = stream(segments, operands: Set(mentions.map(\.index)), clean: false)
        let asked = Quantity.asked(in: plain)
        var out: [Choice] = []
        for (i, first) in mentions.enumerated() where eligible(first) {
            for second in mentions[(i + 1)...] where eligible(second) {
                let operands = [first, second]
                guard let explained = explain(mentions, operands: operands, asked: asked) else { continue }
                out.append(read(segments, mentions: mentions, operands: operands, explained: explained))
            }
        }
        if out.isEmpty {
            for single in mentions where eligible(single) {
                guard let explained = explain(mentions, operands: [single], asked: asked) else { continue }
                out.append(read(segments, mentions: mentions, operands: [single], explained: explained))
            }
        }
        return out
    }

    /// Operands are at least 2 (challenges use 2–85; "one" is a determiner: "with one claw").
    static func eligible(_ mention: Mention) -> Bool {
        mention.value >= 2
    }

    /// Words before "N claws" that make it a count of the problem ("there are four claws", "has three claws").
    static let countLeads = ["are", "has", "have", "betwen", "among", "of", "into", "by", "and", "with", "its"]

    /// Why each number other than `operands` is not an operand, or nil when one cannot be explained.
    static func explain(_ mentions: [Mention], operands: [Mention], asked: Quantity?) -> [String]? {
        var reasons: [String] = []
        let chosen = Set(operands.map(\.ordinal))
        for mention in mentions where !chosen.contains(mention.ordinal) {
            guard let reason = distractorReason(mention, operands: operands, asked: asked) else { return nil }
            reasons.append("\(mention.value): \(reason)")
        }
        return reasons
    }

    /// Why `mention` can be left out when `operands` are the operands.
    static func distractorReason(_ mention: Mention, operands: [Mention], asked: Quantity?) -> String? {
        if !eligible(mention) { return "a determiner, not an operand" }
        if operands.contains(where: { $0.value == mention.value }),
            operands.allSatisfy({ $0.ordinal < mention.ordinal })
        {
            return "restated"
        }
        if let pattern = distractorPattern(mention) { return pattern }
        if let asked, let quantity = mention.quantity, quantity != asked,
            operands.allSatisfy({ $0.quantity == asked })
        {
            return "a \(quantity) beside the \(asked) asked for"
        }
        return nil
    }

    /// Whether an operand itself looks like a distractor ("with two claws"), which makes the reading doubtful.
    static func looksLikeDistractor(_ mention: Mention) -> String? {
        let before = mention.before
        let after = mention.after
        // "the two forces" refers to the operands; "the 23 newton pincer" is one.
        if ["the", "these", "those", "both"].contains(where: { before.hasSuffix($0) }), mention.quantity == nil {
            return "'the N …'"
        }
        if before.hasSuffix("with"), after.hasPrefix("claw") || (mention.quantity == nil && !after.isEmpty) {
            return "'with N …'"
        }
        if after.hasPrefix("big") { return "'N big …'" }
        return nil
    }

    /// The wording that marks a number as outside the problem: "the two …", "with two claws", "two big …", "two
    /// claws" not introduced as a count.
    static func distractorPattern(_ mention: Mention) -> String? {
        let before = mention.before
        let after = mention.after
        if ["the", "these", "those", "both"].contains(where: { before.hasSuffix($0) }), mention.quantity == nil {
            return "'the N …'"
        }
        if before.hasSuffix("with"), after.hasPrefix("claw") { return "'with N claws'" }
        // "with two antennae twitching": a description, not a measure.
        if before.hasSuffix("with"), mention.quantity == nil, !after.isEmpty { return "'with N …'" }
        if after.hasPrefix("big") { return "'N big …'" }
        // "claw one … claw two": labels.
        if before.hasSuffix("claw"), mention.quantity == nil, mention.value < 10 { return "a label ('claw N')" }
        if after.hasPrefix("claw"), !countLeads.contains(where: { before.hasSuffix($0) }),
            !after.prefix(14).contains("each")
        {
            return "'N claws' outside the problem"
        }
        return nil
    }

    /// One reading: the operation for these operands and the result.
    static func read(_ segments: [Segment], mentions: [Mention], operands: [Mention], explained: [String]) -> Choice {
        var choice = Choice(operands: operands, explained: explained)
        choice.notes += explained.map { "ignored \($0)" }
        choice.notes += operands.flatMap(\.number.notes)
        choice.certainty = operands.map(\.number.certainty).reduce(1, *)
        for operand in operands {
            if let pattern = looksLikeDistractor(operand) {
                choice.problem = "operand \(operand.value) looks like a distractor (\(pattern))"
                choice.implausible = true
                return choice
            }
        }
        let operandIndices = Set(operands.map(\.index))
        let full = stream(segments, operands: operandIndices, clean: false)
        let clean = stream(segments, operands: operandIndices, clean: true)
        var hits: [OperationCues.Cue] = []
        for cue in OperationCues.hits(in: full) + OperationCues.hits(in: clean)
        where !hits.contains(where: { $0.text == cue.text }) {
            hits.append(cue)
        }
        if let word = OperationCues.unsupported.first(where: { clean.contains($0) }) {
            choice.problem = "'\(word)' names an operation the solver does not do"
            return choice
        }
        let restated = restatedExpressions(segments, mentions: mentions, operands: operands)
        let decision = OperationDecision.decide(hits: hits, stream: clean, full: full, extra: restated)
        choice.notes += decision.notes
        if let conflict = decision.conflict {
            choice.problem = conflict
            return choice
        }

        var values = operands.map(\.value)
        var operation = decision.operation
        if operands.count == 1 {
            guard let implicit = decision.implicitOperand, let named = decision.operation else {
                choice.problem = "found one number and no scaling word"
                return choice
            }
            choice.implicitOperand = implicit
            choice.notes.append("implicit operand \(implicit)")
            values.append(Decimal(implicit))
            operation = named
        } else {
            let symbols = symbolOperations(segments, from: operands[0].index, to: operands[1].index)
            if Set(symbols.map(\.operation)).count > 1 {
                choice.problem = "operator symbols disagree between the numbers"
                return choice
            }
            if let symbol = symbols.first {
                switch (decision.operation, symbol.operation) {
                case (nil, .divide):
                    choice.problem = "a lone '/' between the numbers and no words naming the operation"
                    return choice
                case (nil, let named):
                    operation = named
                    choice.notes.append("explicit '\(symbol.symbol)'")
                case (let words?, let named) where words == named:
                    choice.notes.append("explicit '\(symbol.symbol)'")
                case (.some, let named) where decision.onlyWeak && (named == .multiply || named == .add):
                    operation = named
                    choice.notes.append("explicit '\(symbol.symbol)' over weak cue words")
                case (let words?, let named):
                    choice.problem =
                        "'\(symbol.symbol)' between the numbers reads \(named.rawValue), the words \(words.rawValue)"
                    return choice
                }
            }
        }
        guard let operation else {
            choice.problem = "no operation cue"
            return choice
        }
        if operands.count == 2 {
            for loose in looseSymbolOperations(segments, from: operands[0].index, to: operands[1].index)
            where loose.operation != operation {
                choice.problem =
                    "'\(loose.symbol)' between the numbers could be the operator (\(loose.operation.rawValue))"
                return choice
            }
        }
        for inside in insideSymbolOperations(segments) where inside.operation != operation {
            choice.problem = "'\(inside.symbol)' inside a word could be a \(inside.operation.rawValue) sign"
            return choice
        }
        if decision.onlyWeak { choice.certainty *= 0.9 }
        choice.operation = operation
        let (a, b) = (values[0], values[1])
        switch operation {
        case .add: choice.result = a + b
        case .subtract:
            var difference = a - b
            if difference < 0 {
                guard clean.contains("smaler") || clean.contains("larger") else {
                    choice.problem = "negative result \(a) - \(b)"
                    return choice
                }
                difference = -difference
            }
            choice.result = difference
        case .multiply: choice.result = a * b
        case .divide:
            guard b != 0 else {
                choice.problem = "division by zero"
                return choice
            }
            choice.result = a / b
        }
        return choice
    }

    // MARK: - Streams and symbols

    /// The collapsed letters of the segments: operands as `#`, other live numbers as `@`, symbols left out; `clean`
    /// also leaves out fillers.
    static func stream(_ segments: [Segment], operands: Set<Int>, clean: Bool) -> String {
        var out = ""
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .word(let word):
                if !clean || !OperationCues.fillers.contains(word) { out += word }
            case .number(let number):
                if !number.dropped { out += operands.contains(index) ? "#" : "@" }
            case .symbol, .attached: break
            }
        }
        return ChallengeNormalizer.collapse(out)
    }

    /// The operation of an operator symbol.
    static func operation(of symbol: Character) -> ArithmeticOperation? {
        switch symbol {
        case "+": .add
        case "-": .subtract
        case "*", "×", "x": .multiply
        case "/", "÷": .divide
        default: nil
        }
    }

    /// Symbols between the segments `from` and `to` that stand tightly between the two numbers: only a unit
    /// (and fillers) between the first number and the symbol, only fillers between the symbol and the second
    /// ("twenty three newtons * seven", "twenty five - seven"). Anywhere else a symbol is noise.
    static func symbolOperations(_ segments: [Segment], from: Int, to: Int) -> [(
        symbol: Character, operation: ArithmeticOperation
    )] {
        guard from + 1 < to else { return [] }
        var out: [(Character, ArithmeticOperation)] = []
        for index in (from + 1)..<to {
            let symbol: Character
            switch segments[index] {
            case .symbol(let character): symbol = character
            case .attached(let character, inside: false): symbol = character
            default: continue
            }
            guard let operation = operation(of: symbol) else { continue }
            let left = words(segments, (from + 1)..<index)
            let right = words(segments, (index + 1)..<to)
            guard let left, let right, isFillers(right), isUnitPhrase(left) else { continue }
            out.append((symbol, operation))
        }
        return out
    }

    /// `*`, `x` and `+` between the two numbers but not tightly: usually noise ("um * and has two claws"), but
    /// rare enough as noise that a reading with another operation is doubtful.
    /// A symbol with a clause word between it and a number ("um * and has two claws", "the * other claw") is noise.
    static func looseSymbolOperations(_ segments: [Segment], from: Int, to: Int) -> [(
        symbol: Character, operation: ArithmeticOperation
    )] {
        guard from + 1 < to else { return [] }
        return ((from + 1)..<to).compactMap { index in
            switch segments[index] {
            case .symbol(let symbol), .attached(let symbol, inside: false):
                guard "*×x+".contains(symbol), let operation = operation(of: symbol) else { return nil }
                // Another number between the symbol and an operand: the symbol belongs to that one.
                guard let left = words(segments, (from + 1)..<index), let right = words(segments, (index + 1)..<to),
                    !hasClauseWord(left), !hasClauseWord(right)
                else { return nil }
                return (symbol, operation)
            default: return nil
            }
        }
    }

    /// Words that start or join a clause: a symbol next to them is punctuation, not an operator.
    static let clauseWords = [
        "and", "but", "the", "other", "while", "with", "then", "what", "how", "claw", "lobst", "its",
    ]

    /// Whether `letters` hold a clause word or an operation cue.
    static func hasClauseWord(_ letters: String) -> Bool {
        clauseWords.contains { letters.contains($0) } || !OperationCues.hits(in: letters).isEmpty
    }

    /// Symbols stuck inside words ("FoRcE*GrOwTh"): never the operator for sure, but a reason to doubt a reading
    /// with another operation.
    static func insideSymbolOperations(_ segments: [Segment]) -> [(symbol: Character, operation: ArithmeticOperation)] {
        segments.indices.compactMap { index in
            // A "+" inside a word is noise ("NeW+ToNs"), and so is a "*" inside a short one ("i*S"); a "*" between
            // two longer words may join two quantities ("FoRcE*GrOwTh").
            guard case .attached(let symbol, inside: true) = segments[index], symbol != "+",
                let operation = operation(of: symbol), index > 0, index + 1 < segments.count,
                case .word(let left) = segments[index - 1], case .word(let right) = segments[index + 1],
                left.count >= 3, right.count >= 3
            else { return nil }
            return (symbol, operation)
        }
    }

    /// The collapsed letters of the words in `range` (fillers included: fragments of "umm" may not be fillers on
    /// their own), or nil when a number lies in it.
    static func words(_ segments: [Segment], _ range: Range<Int>) -> String? {
        var out = ""
        for index in range {
            switch segments[index] {
            case .word(let word): out += word
            case .number(let number): if !number.dropped { return nil }
            case .symbol, .attached: break
            }
        }
        return ChallengeNormalizer.collapse(out)
    }

    /// Whether `letters` is empty, fillers, or a unit with fillers around ("newtons", "um meters per second").
    static func isUnitPhrase(_ letters: String) -> Bool {
        if letters.isEmpty { return true }
        return unitPhrase.firstMatch(in: letters, range: NSRange(letters.startIndex..., in: letters)) != nil
    }

    /// Only fillers ("um", "uh m").
    /// Only fillers, or a lone letter split off the number that follows ("- S sIx").
    static func isFillers(_ letters: String) -> Bool {
        letters.count <= 1
            || fillerRun.firstMatch(in: letters, range: NSRange(letters.startIndex..., in: letters)) != nil
    }

    // The patterns are fixed and valid.
    static let fillerPattern = "(um|uh|uhm|hm|er|like|ha|swoth|glar|blah|lxq|lxobqstwer|physxics|lobster)*"
    static let fillerRun = try! NSRegularExpression(pattern: "^\(fillerPattern)$")
    static let unitPhrase = try! NSRegularExpression(
        pattern: "^\(fillerPattern)(n[aeiouwy]{0,5}t[aeiouwy]{0,3}ns?|n|c[a-z]{0,6}?m[a-z]{0,5}?(rs?|ts?)|cms?"
            + "|m[ea]{0,2}t[ea]{0,2}rs?|m|kilograms?|kg|seconds?|secs?)?\(fillerPattern)"
            + "((per|p)?\(fillerPattern)(seconds?|secs?|s|minutes?|mins?|hours?))?\(fillerPattern)$")

    /// Symbols between two restatements of the operands in the question ("… the product of twenty three * seven"):
    /// the question names the operation outright.
    static func restatedExpressions(_ segments: [Segment], mentions: [Mention], operands: [Mention]) -> [(
        ArithmeticOperation, String
    )] {
        guard operands.count == 2, mentions.count > 2 else { return [] }
        let values = Set(operands.map(\.value))
        var out: [(ArithmeticOperation, String)] = []
        for (left, right) in zip(mentions, mentions.dropFirst())
        where Set([left.value, right.value]) == values && (right.ordinal > operands[1].ordinal) {
            for found in symbolOperations(segments, from: left.index, to: right.index) {
                out.append((found.operation, "restated '\(left.value) \(found.symbol) \(right.value)'"))
            }
        }
        return out
    }

    // MARK: - Symbols inside compounds

    /// The segmentations where one compound read across a symbol ("tHiRtY / TwO") is split at it instead.
    static func splitVariants(_ segments: [Segment]) -> [[Segment]] {
        var out: [[Segment]] = []
        for (index, segment) in segments.enumerated() {
            guard case .number(let number) = segment, !number.dropped, let across = number.acrossSymbol else {
                continue
            }
            var variant = segments
            variant.replaceSubrange(
                index...index,
                with: [
                    .number(ReadNumber(value: across.tens, certainty: number.certainty, notes: [])),
                    .symbol(across.symbol),
                    .number(ReadNumber(value: across.unit, certainty: number.certainty, notes: [])),
                ])
            out.append(variant)
        }
        return out
    }
}
