import ChallengeSolver
import Foundation
import MoltbookSandbox
import Testing

/// The acceptance corpus: sandbox-generated challenges at every obfuscation level plus every real example of
/// challenges.md (fixtures/challenges/real.json).
struct ChallengeCorpusTests {
    /// One corpus entry: the text, the answer the server wants, and whether a decline is acceptable.
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var text: String
        var expected: String
        var mayDecline: Bool
        var description: String { name }
    }

    static let seed: UInt64 = 20_260_214
    static let generatedCount = 400

    static func generated() -> [Case] {
        var generator = ChallengeGenerator(seed: seed)
        return (0..<generatedCount).map { index in
            let challenge = generator.next(level: index % 4)
            return Case(
                name: "generated #\(index) level \(challenge.level)", text: challenge.text,
                expected: challenge.formattedAnswer, mayDecline: false)
        }
    }

    static func real() throws -> [Case] {
        struct File: Decodable {
            struct Entry: Decodable {
                var name: String
                var text: String
                var expected: String
                var may_decline: Bool?
            }
            var cases: [Entry]
        }
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("fixtures/challenges/real.json")
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
        return file.cases.map {
            Case(name: "real: \($0.name)", text: $0.text, expected: $0.expected, mayDecline: $0.may_decline ?? false)
        }
    }

    /// Tally of a corpus run.
    struct Tally: CustomStringConvertible {
        var correct = 0
        var declined = 0
        var wrong = 0
        var total: Int { correct + declined + wrong }
        var description: String {
            "\(correct)/\(total) correct, \(declined) declined, \(wrong) wrong above the threshold"
        }
    }

    static func run(_ cases: [Case], solver: ChallengeSolver = ChallengeSolver()) -> (Tally, [String]) {
        var tally = Tally()
        var failures: [String] = []
        for item in cases {
            switch solver.solve(item.text) {
            case .answer(let answer, let confidence, _, _):
                if answer == item.expected {
                    tally.correct += 1
                } else {
                    tally.wrong += 1
                    failures.append(
                        "WRONG \(item.name): \(item.text) → \(answer) (\(confidence)), want \(item.expected)")
                }
            case .declined(let reason, _):
                tally.declined += 1
                if !item.mayDecline { failures.append("declined \(item.name): \(item.text) — \(reason)") }
            }
        }
        return (tally, failures)
    }

    /// ≥ 99 % of the whole corpus answered correctly, and no wrong answer above the threshold.
    @Test func acceptanceCorpus() throws {
        let cases = Self.generated() + (try Self.real())
        #expect(cases.count >= 200 + 20)
        let (tally, failures) = Self.run(cases)
        print("challenge corpus (seed \(Self.seed), \(Self.generatedCount) generated + real): \(tally)")
        for failure in failures { print(failure) }
        #expect(tally.wrong == 0, "\(failures.filter { $0.hasPrefix("WRONG") })")
        #expect(Double(tally.correct) >= 0.99 * Double(tally.total), "\(tally)")
    }

    /// Every real example: the accepted answer, or (for the traps the doc marks) a decline; never a wrong answer.
    @Test func realExamples() throws {
        let (tally, failures) = Self.run(try Self.real())
        print("real examples: \(tally)")
        #expect(tally.wrong == 0, "\(failures)")
        #expect(failures.isEmpty, "\(failures)")
    }

    /// Each obfuscation level on its own, from further seeds: still no wrong answer above the threshold.
    @Test(arguments: 0...3) func levelSweep(level: Int) {
        var cases: [Case] = []
        for seed in [UInt64(1), 2, 3] {
            var generator = ChallengeGenerator(seed: seed &* 7_919 &+ UInt64(level))
            for index in 0..<100 {
                let challenge = generator.next(level: level)
                cases.append(
                    Case(
                        name: "seed \(seed) #\(index)", text: challenge.text, expected: challenge.formattedAnswer,
                        mayDecline: false))
            }
        }
        let (tally, failures) = Self.run(cases)
        print("level \(level): \(tally)")
        #expect(tally.wrong == 0, "\(failures)")
        #expect(Double(tally.correct) >= 0.99 * Double(tally.total), "\(failures)")
    }

    /// The same text always gives the same answer (no randomness, no clock).
    @Test func deterministic() {
        var generator = ChallengeGenerator(seed: 99)
        for _ in 0..<20 {
            let text = generator.next(level: 3).text
            #expect(ChallengeSolver().solve(text) == ChallengeSolver().solve(text))
        }
    }

    /// A threshold of 1.01 declines everything, with a reason naming the reading.
    @Test func thresholdAboveOneDeclines() {
        let solution = ChallengeSolver(threshold: 1.01).solve("a lobster claw exerts five newtons and gains two")
        guard case .declined(let reason, let confidence) = solution else {
            Issue.record("expected a decline, got \(solution)")
            return
        }
        #expect(reason.contains("5 + 2"))
        #expect(confidence > 0.9)
    }
}
