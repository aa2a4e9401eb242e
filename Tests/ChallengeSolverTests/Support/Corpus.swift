import ChallengeSolver
import Foundation

/// A corpus of challenge texts with their true answers, and how the solver does on it.
struct Corpus: Sendable {
    /// One entry: the text, the answer the server wants, and whether a decline is acceptable.
    struct Case: Sendable, Codable, CustomStringConvertible {
        var name: String
        var text: String
        var expected: String
        var mayDecline: Bool = false
        var description: String { name }

        enum CodingKeys: String, CodingKey {
            case name, text, expected
            case mayDecline = "may_decline"
        }

        init(name: String, text: String, expected: String, mayDecline: Bool = false) {
            self.name = name
            self.text = text
            self.expected = expected
            self.mayDecline = mayDecline
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            text = try container.decode(String.self, forKey: .text)
            expected = try container.decode(String.self, forKey: .expected)
            mayDecline = try container.decodeIfPresent(Bool.self, forKey: .mayDecline) ?? false
        }
    }

    /// Tally of a corpus run: answered right, answered wrong, declined.
    struct Tally: CustomStringConvertible {
        var correct = 0
        var wrong = 0
        var declined = 0
        var total: Int { correct + wrong + declined }
        var answered: Int { correct + wrong }
        var answeredRate: Double { total == 0 ? 0 : Double(answered) / Double(total) }
        var description: String {
            let percent = String(format: "%.1f", 100 * answeredRate)
            return "\(total) texts: \(answered) answered (\(percent) %), \(wrong) wrong, \(declined) declined"
        }
    }

    var cases: [Case]

    /// The cases of `fixtures/challenges/NAME.json`.
    static func fixture(_ name: String) throws -> Corpus {
        struct File: Decodable { var cases: [Case] }
        let data = try Data(contentsOf: fixtureURL(name))
        return Corpus(cases: try JSONDecoder().decode(File.self, from: data).cases)
    }

    static func fixtureURL(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("fixtures/challenges/\(name).json")
    }

    /// Writes `cases` as `fixtures/challenges/NAME.json` (a held-out fixture, once).
    static func write(_ cases: [Case], to name: String, source: String) throws {
        struct File: Encodable {
            var source: String
            var cases: [Case]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(File(source: source, cases: cases)).write(to: fixtureURL(name))
    }

    /// `count` texts from `templates` with `seed`.
    static func generated(
        seed: UInt64, count: Int, templates: [ChallengeTemplate],
        configure: (inout ChallengeTextGenerator) -> Void = { _ in }
    ) -> [GeneratedText] {
        var generator = ChallengeTextGenerator(seed: seed, templates: templates)
        configure(&generator)
        return (0..<count).map { generator.next(index: $0) }
    }

    /// Runs the solver over every case: the tally, the wrong answers and the declines of cases that should have
    /// been answered.
    func run(_ solver: ChallengeSolver = ChallengeSolver()) -> (tally: Tally, wrong: [String], declined: [String]) {
        var tally = Tally()
        var wrong: [String] = []
        var declined: [String] = []
        for item in cases {
            switch solver.solve(item.text) {
            case .answer(let answer, let confidence, _, let operands):
                if answer == item.expected {
                    tally.correct += 1
                } else {
                    tally.wrong += 1
                    wrong.append(
                        "WRONG \(item.name): \(item.text) → \(answer) from \(operands) (\(confidence)), want \(item.expected)"
                    )
                }
            case .declined(let reason, _):
                tally.declined += 1
                if !item.mayDecline { declined.append("declined \(item.name): \(item.text) — \(reason)") }
            }
        }
        return (tally, wrong, declined)
    }
}
