import ChallengeSolver
import Foundation
import MoltbookSandbox
import Testing

/// The solver on every corpus: never a wrong answer, and the share it answers.
///
/// Corpora: the facts of challenges.md (`real.json`), texts quoted in public agent repositories (`public.json`),
/// the tuning corpus generated from `TunedTemplates`, the held-out corpus (`heldout.json`, frozen, from
/// `HeldoutTemplates` and another seed, never tuned on) and the sandbox's own generator at every level.
struct ChallengeCorpusTests {
    static let tunedSeed: UInt64 = 18_2026
    static let tunedCount = 1_000
    static let heldoutSeed: UInt64 = 0x4845_4C44_3256
    static let heldoutCount = 500
    static let heldout2Seed: UInt64 = 0x4845_4C44_3334

    /// The held-out generator: its own templates, seed, fillers, junk and correction words.
    static func heldoutTexts() -> [GeneratedText] {
        Corpus.generated(seed: heldoutSeed, count: heldoutCount, templates: HeldoutTemplates.all) {
            $0.fillers = ["um", "uh", "hmm", "er", "like", "umm", "uhh"]
            $0.junk = ["blorp", "zzt", "lxobqstwer", "<ha>", "qq", "lo.bst err"]
            $0.corrections = ["oops no", "no wait", "sorry", "um no"]
            $0.operatorNoise = 0.03
        }
    }

    /// The second held-out generator (issue 34): other templates, seed, fillers, junk and correction words again.
    static func heldout2Texts() -> [GeneratedText] {
        Corpus.generated(seed: heldout2Seed, count: heldoutCount, templates: HeldoutTemplates2.all) {
            $0.fillers = ["um", "uh", "hmm", "erm", "like", "uhm", "ah"]
            $0.junk = ["grrk", "blip", "zorp", "<hm>", "xq", "lo bst"]
            $0.corrections = ["oops wait", "no sorry", "um no", "wait"]
            $0.operatorNoise = 0.03
        }
    }

    static func report(_ name: String, _ tally: Corpus.Tally, _ lines: [String]) {
        print("\(name): \(tally)")
        for line in lines.prefix(60) { print("  \(line)") }
    }

    /// Every fact of challenges.md: the accepted answer, or a decline where the doc marks a trap; never wrong.
    @Test func referenceFacts() throws {
        let (tally, wrong, declined) = try Corpus.fixture("real").run()
        Self.report("reference facts", tally, wrong + declined)
        #expect(tally.wrong == 0, "\(wrong)")
        #expect(declined.isEmpty, "\(declined)")
    }

    /// Texts quoted in public agent repositories: never wrong.
    @Test func publicTexts() throws {
        let (tally, wrong, declined) = try Corpus.fixture("public").run()
        Self.report("public texts", tally, wrong + declined)
        #expect(tally.wrong == 0, "\(wrong)")
        #expect(tally.answeredRate >= 0.85, "\(tally)")
    }

    /// The tuning corpus: never wrong, at least 95 % answered.
    @Test func tunedCorpus() {
        let texts = Corpus.generated(seed: Self.tunedSeed, count: Self.tunedCount, templates: TunedTemplates.all) {
            $0.operatorNoise = 0.015
        }
        let corpus = Corpus(cases: texts.map { Corpus.Case(name: $0.name, text: $0.text, expected: $0.expected) })
        let (tally, wrong, declined) = corpus.run()
        Self.report("tuned corpus (seed \(Self.tunedSeed))", tally, wrong + declined)
        #expect(tally.wrong == 0, "\(wrong)")
        #expect(tally.answeredRate >= 0.95, "\(tally)")
    }

    /// The held-out corpus, frozen in fixtures/challenges/heldout.json. It must not be tuned on: its templates, seed,
    /// fillers and junk differ from the tuning corpus, and only its figures are read (never its texts or reasons).
    /// Never wrong, at least 95 % answered (94.8 % when it was frozen, 95.8 % now; docs/challenges.md).
    @Test func heldoutCorpus() throws {
        let (tally, wrong, _) = try Corpus.fixture("heldout").run()
        Self.report("held-out corpus", tally, [])
        #expect(tally.wrong == 0, "\(wrong.count) wrong on the held-out corpus")
        #expect(tally.answeredRate >= 0.95, "\(tally)")
    }

    /// The second held-out corpus (issue 34), frozen in fixtures/challenges/heldout2.json before the solver ran on
    /// it. Like the first, it must not be tuned on: only its figures are read. Never wrong; the answered floor is
    /// what it gave on its first run (81.6 %, docs/challenges.md), not the 96 % aimed at.
    @Test func heldout2Corpus() throws {
        let (tally, wrong, _) = try Corpus.fixture("heldout2").run()
        Self.report("second held-out corpus", tally, [])
        #expect(tally.wrong == 0, "\(wrong.count) wrong on the second held-out corpus")
        #expect(tally.answeredRate >= 0.81, "\(tally)")
    }

    /// The first held-out corpus, inspected once by decline reason and since then a regression corpus: never wrong,
    /// at least 95 % answered.
    @Test func diagnosedCorpus() throws {
        let (tally, wrong, declined) = try Corpus.fixture("diagnosed").run()
        Self.report("diagnosed corpus (former held-out)", tally, wrong + declined)
        #expect(tally.wrong == 0, "\(wrong)")
        #expect(tally.answeredRate >= 0.95, "\(tally)")
    }

    /// The held-out fixture is exactly what its generator gives (set WRITE_HELDOUT=1 to write it once).
    @Test func heldoutIsFrozen() throws {
        let texts = Self.heldoutTexts()
        let cases = texts.map { Corpus.Case(name: $0.name, text: $0.text, expected: $0.expected) }
        if ProcessInfo.processInfo.environment["WRITE_HELDOUT"] == "1" {
            struct File: Encodable {
                var source: String
                var cases: [Corpus.Case]
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let file = File(
                source: "Held-out corpus: HeldoutTemplates with seed \(Self.heldoutSeed), generated once and frozen. "
                    + "Never tune the solver on it.", cases: cases)
            try encoder.encode(file).write(to: Corpus.fixtureURL("heldout"))
        }
        let frozen = try Corpus.fixture("heldout").cases
        #expect(frozen.map(\.text) == cases.map(\.text))
        #expect(frozen.map(\.expected) == cases.map(\.expected))
    }

    /// The second held-out fixture is exactly what its generator gives (set WRITE_HELDOUT2=1 to write it once).
    @Test func heldout2IsFrozen() throws {
        let cases = Self.heldout2Texts().map { Corpus.Case(name: $0.name, text: $0.text, expected: $0.expected) }
        if ProcessInfo.processInfo.environment["WRITE_HELDOUT2"] == "1" {
            try Corpus.write(
                cases, to: "heldout2",
                source: "Second held-out corpus (issue 34): HeldoutTemplates2 with seed \(Self.heldout2Seed), "
                    + "generated once and frozen before the solver ran on it. Never tune the solver on it.")
        }
        let frozen = try Corpus.fixture("heldout2").cases
        #expect(frozen.map(\.text) == cases.map(\.text))
        #expect(frozen.map(\.expected) == cases.map(\.expected))
    }

    /// The sandbox's generator at each obfuscation level: never wrong, at least 99 % answered.
    @Test(arguments: 0...3) func sandboxLevel(level: Int) {
        var cases: [Corpus.Case] = []
        for seed in [UInt64(20_260_214), 1, 2, 3] {
            var generator = ChallengeGenerator(seed: seed &* 7_919 &+ UInt64(level))
            for index in 0..<250 {
                let challenge = generator.next(level: level)
                cases.append(
                    Corpus.Case(
                        name: "seed \(seed) #\(index)", text: challenge.text, expected: challenge.formattedAnswer))
            }
        }
        let (tally, wrong, declined) = Corpus(cases: cases).run()
        Self.report("sandbox level \(level)", tally, wrong + declined)
        #expect(tally.wrong == 0, "\(wrong)")
        #expect(tally.answeredRate >= 0.99, "\(tally)")
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
