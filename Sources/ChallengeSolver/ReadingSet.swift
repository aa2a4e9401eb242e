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
            // "point" after a number and before another that the reader did not join: a decimal read whole or not.
            if case .word("point") = segments[start], start > 0, case .number = segments[start - 1],
                segments[(start + 1)...].prefix(3).contains(where: {
                    if case .number = $0 { return true }
                    return false
                })
            {
                out.append("point")
            }
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
        // "… twenty two claws and gains eleven more, how many claws": the claws are the problem's.
        let countsClaws = plain.range(of: "howmany[a-z]{0,12}?claw", options: .regularExpression) != nil
        func explain(_ mentions: [Mention], operands: [Mention], asked: Quantity?) -> [String]? {
            Self.explain(mentions, operands: operands, asked: asked, countsClaws: countsClaws)
        }
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

    /// Body parts a lobster is described "with".
    static let bodyParts = ["claw", "leg", "antena", "eye", "pincer", "tail", "fin", "feler", "arm"]

    /// Words before "N claws" that make it a count of the problem ("there are four claws", "has three claws").
    static let countLeads = [
        "are", "has", "have", "betwen", "among", "of", "into", "by", "and", "with", "its", "ofthe", "ofthese",
    ]

    /// Why each number other than `operands` is not an operand, or nil when one cannot be explained.
    static func explain(_ mentions: [Mention], operands: [Mention], asked: Quantity?, countsClaws: Bool = false)
        -> [String]?
    {
        var reasons: [String] = []
        let chosen = Set(operands.map(\.ordinal))
        for mention in mentions where !chosen.contains(mention.ordinal) {
            guard let reason = distractorReason(mention, operands: operands, asked: asked, countsClaws: countsClaws)
            else { return nil }
            reasons.append("\(mention.value): \(reason)")
        }
        return reasons
    }

    /// Why `mention` can be left out when `operands` are the operands.
    static func distractorReason(_ mention: Mention, operands: [Mention], asked: Quantity?, countsClaws: Bool = false)
        -> String?
    {
        if !eligible(mention) { return "a determiner, not an operand" }
        if operands.contains(where: { $0.value == mention.value }),
            operands.allSatisfy({ $0.ordinal < mention.ordinal })
        {
            return "restated"
        }
        if let pattern = distractorPattern(mention), !(countsClaws && mention.after.hasPrefix("claw")) {
            return pattern
        }
        if let asked, let quantity = mention.quantity, quantity != asked,
            operands.allSatisfy({ $0.quantity == asked })
        {
            return "a \(quantity) beside the \(asked) asked for"
        }
        return nil
    }

    /// Whether an operand itself looks like a distractor ("with two claws"), which makes the reading doubtful.
    static func looksLikeDistractor(_ mention: Mention) -> String? {
        distractorPattern(mention)
    }

    /// The wording that marks a number as outside the problem: "the two …", "with two claws", "two big …", "two
    /// claws" not introduced as a count.
    static func distractorPattern(_ mention: Mention) -> String? {
        let before = mention.before
        let after = mention.after
        // "the two forces" refers to the operands; "each of the four claws" counts, "the 23 newton pincer" measures.
        // Fillers may stand anywhere in between ("each of hmm the two claws"), junk before the unit ("the seventy
        // four blorp newton pincer").
        let measured = (0...6).contains { Quantity.of(String(after.dropFirst($0))) != nil }
        let theN = [before, mention.bare].allSatisfy { before in
            ["the", "these", "those", "both"].contains(where: { before.hasSuffix($0) })
                && !before.hasSuffix("ofthe") && !before.hasSuffix("ofthese") && !before.hasSuffix("ofthose")
        }
        if theN, !measured {
            return "'the N …'"
        }
        // "with two claws", "with six legs", "with two antennae twitching": a body, not a measure.
        // Junk may stand between ("with lo.bst err six antennae"), not a word that makes them the problem's ("with
        // its two claws").
        if let with = before.range(of: "with", options: .backwards),
            before.distance(from: with.upperBound, to: before.endIndex) <= 8,
            !["its", "the", "al", "her", "his", "both", "thes", "each", "every", "are", "has"].contains(where: {
                before[with.upperBound...].hasPrefix($0)
            }), bodyParts.contains(where: after.hasPrefix)
        {
            return "'with N \(after.prefix(4))…'"
        }
        if after.hasPrefix("big") { return "'N big …'" }
        // "claw one … claw two": labels.
        if before.hasSuffix("claw"), mention.quantity == nil, mention.value < 10 { return "a label ('claw N')" }
        if after.hasPrefix("claw"),
            !mention.leads.contains(where: { lead in countLeads.contains(where: lead.hasSuffix) }),
            !after.prefix(14).contains("each"), !mention.afterOperator
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
        let words = wordStream(segments)
        for cue in OperationCues.hits(in: full, words: words) + OperationCues.hits(in: clean, words: words)
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
        if let strength = decision.strength, let operation = decision.operation,
            let hidden = (OperationCues.hidden(in: full, words: words) + OperationCues.hidden(in: clean, words: words))
                .first(where: {
                    $0.operation != operation && $0.strength >= strength && !hits.map(\.text).contains($0.text)
                })
        {
            choice.problem = "'\(hidden.text)' may be a word of its own or part of a longer word"
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
            var symbols = symbolOperations(segments, from: operands[0].index, to: operands[1].index)
            let named = Set(symbols.map(\.operation))
            // "-*": a `-` and a `*` or `+` (one of them noise) are settled by words that name one of them outright or
            // by a verb; weak words or none leave it open.
            if named.count == 2, named.contains(.subtract), let words = decision.operation, !decision.onlyWeak,
                named.contains(words)
            {
                symbols.removeAll { $0.operation != words }
            }
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
}
