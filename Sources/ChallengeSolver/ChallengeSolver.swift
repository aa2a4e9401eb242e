import Foundation

/// The built-in verification-challenge solver: normalises the obfuscated text, reads the two numbers, finds the
/// one operation, computes and formats with two decimals. Pure: no randomness, no clock, no I/O.
///
/// Every repair and guess lowers the confidence of the reading; below `threshold` the solver declines, because a
/// wrong answer counts towards a suspension and a declined one does not have to.
public struct ChallengeSolver: Sendable {
    /// The default confidence below which the solver declines.
    public static let defaultThreshold = 0.7

    /// Answers need at least this confidence (0…1).
    public var threshold: Double

    public init(threshold: Double = ChallengeSolver.defaultThreshold) {
        self.threshold = threshold
    }

    /// The answer for `text`, or a decline with its reason.
    public func solve(_ text: String) -> Solution {
        let reading = read(text)
        guard let result = reading.result, let operation = reading.operation else {
            return .declined(reason: reading.explanation, confidence: reading.confidence)
        }
        guard reading.confidence >= threshold else {
            let confidence = String(format: "%.2f", reading.confidence)
            let limit = String(format: "%.2f", threshold)
            return .declined(
                reason: "confidence \(confidence) below \(limit) for \(reading.summary): \(reading.explanation)",
                confidence: reading.confidence)
        }
        return .answer(
            AnswerFormat.twoDecimals(result), confidence: reading.confidence, operation: operation,
            operands: reading.operands)
    }

    /// The best reading of `text`, whatever its confidence.
    public func read(_ text: String) -> Reading {
        var reading = Reading()
        let segments = NumberReader.segments(text)
        var candidates = NumberCandidate.all(in: segments)
        reading.notes += candidates.filter(\.number.dropped).map { "dropped \($0.number.value) (self-correction)" }
        candidates.removeAll { $0.number.dropped }
        candidates = NumberCandidate.withoutDistractors(candidates, notes: &reading.notes)

        let streams = Self.streams(segments)
        let hits = streams.flatMap { OperationCues.hits(in: $0) }
        let decision = OperationDecision.decide(
            hits: hits, explicit: Self.explicitOperator(segments, between: candidates), stream: streams[0])
        reading.notes += decision.notes

        var operands = candidates.map(\.number)
        if operands.count == 1, let implicit = decision.implicitOperand {
            operands.append(ReadNumber(value: Decimal(implicit), certainty: 1, notes: []))
            reading.notes.append("implicit operand \(implicit)")
        }
        guard operands.count == 2 else {
            reading.notes.insert("found \(operands.count) numbers, need 2", at: 0)
            reading.operands = operands.map(\.value)
            reading.confidence = 0
            return reading
        }
        guard let operation = decision.operation else {
            reading.operands = operands.map(\.value)
            reading.confidence = 0
            reading.notes.insert("no operation cue", at: 0)
            return reading
        }
        reading.operation = operation
        reading.operands = operands.map(\.value)
        reading.notes += operands.flatMap(\.notes)
        var confidence = decision.certainty * operands.map(\.certainty).reduce(1, *)
        let (a, b) = (operands[0].value, operands[1].value)
        var result: Decimal
        switch operation {
        case .add: result = a + b
        case .subtract:
            result = a - b
            if result < 0 {
                if streams[0].contains("smaler") || streams[0].contains("larger") {
                    result = -result
                } else {
                    confidence *= 0.5
                    reading.notes.append("negative result")
                }
            }
        case .multiply: result = a * b
        case .divide:
            guard b != 0 else {
                reading.notes.insert("division by zero", at: 0)
                reading.confidence = 0
                return reading
            }
            result = a / b
        }
        reading.result = result
        reading.confidence = max(0, min(1, confidence))
        return reading
    }

    /// The collapsed letter stream of the segments, and the same without fillers and junk.
    static func streams(_ segments: [Segment]) -> [String] {
        var full = ""
        var clean = ""
        for segment in segments {
            switch segment {
            case .word(let word):
                full += word
                if !OperationCues.fillers.contains(word) { clean += word }
            case .number(let number):
                if !number.dropped {
                    full += "#"
                    clean += "#"
                }
            case .symbol(let symbol):
                full.append(symbol)
                clean.append(symbol)
            }
        }
        return [ChallengeNormalizer.collapse(full), ChallengeNormalizer.collapse(clean)]
    }

    /// An operator symbol (or a lone "x") standing between the two operands.
    static func explicitOperator(_ segments: [Segment], between candidates: [NumberCandidate]) -> Character? {
        guard candidates.count == 2 else { return nil }
        let range = (candidates[0].index + 1)..<candidates[1].index
        var found: Character?
        for index in range {
            switch segments[index] {
            case .symbol(let symbol):
                if found != nil { return nil }
                found = symbol
            case .word("x"):
                if found != nil { return nil }
                found = "*"
            default: continue
            }
        }
        return found
    }
}

/// The solver's best reading of a challenge, with its confidence and what lowered it.
public struct Reading: Sendable, Equatable {
    public var operation: ArithmeticOperation?
    public var operands: [Decimal] = []
    public var result: Decimal?
    /// 0…1.
    public var confidence: Double = 0
    /// Repairs, guesses and problems, most important first.
    public var notes: [String] = []

    /// "32 - 9" or "no reading".
    public var summary: String {
        guard let operation, operands.count == 2 else { return "no reading" }
        return "\(operands[0]) \(operation.symbol) \(operands[1])"
    }

    /// The notes as one line.
    public var explanation: String {
        notes.isEmpty ? "no problems" : notes.joined(separator: "; ")
    }
}
