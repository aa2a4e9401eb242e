import Foundation

/// The built-in verification-challenge solver: normalises the obfuscated text, reads the numbers, enumerates the
/// plausible readings (which numbers are operands, whether a symbol between them is the operator or noise, which
/// operation the words name) and answers only when every reading gives the same result. Pure: no randomness, no
/// clock, no I/O.
///
/// A wrong answer counts towards a suspension and a declined one does not have to, so any disagreement between
/// readings, any unexplained number and any conflict between cue words is a decline with its reason. Repairs of
/// misspelt numbers lower the confidence; below `threshold` the solver declines as well.
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

    /// The agreed reading of `text` whatever its confidence, or (without a result) the first reading and why the
    /// readings give no answer.
    public func read(_ text: String) -> Reading {
        let set = ReadingSet(text)
        let (choice, problem) = set.verdict()
        var reading = Reading()
        reading.notes = set.notes
        if let choice {
            reading.operands = choice.operands.map(\.value) + (choice.implicitOperand.map { [Decimal($0)] } ?? [])
            reading.notes += choice.notes
        }
        if let problem {
            reading.notes.insert(problem, at: 0)
            return reading
        }
        guard let choice, let result = choice.result else { return reading }
        reading.operation = choice.operation
        reading.result = result
        reading.confidence = max(0, min(1, set.choices.map(\.certainty).min() ?? 0))
        if set.choices.count > 1 { reading.notes.append("\(set.choices.count) readings agree") }
        return reading
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
