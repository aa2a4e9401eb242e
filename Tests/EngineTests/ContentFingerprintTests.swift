import Foundation
import MoltipassTesting
import Testing

@testable import MoltipassCommands
@testable import MoltipassEngine
@testable import MoltipassPlan

/// The duplicate guard's fingerprints.
@Suite struct ContentFingerprintTests {
    /// Case, white space, punctuation and markup do not make a text different.
    @Test(arguments: [
        ("Drink water!", "drink   WATER"), ("**Great** post.", "great post"),
        ("# Hourly reminder\n\nDrink water!", "hourly reminder drink water"),
        ("Émile's café — open", "émile s café open"),
    ])
    func noiseIsNormalisedAway(a: String, b: String) {
        #expect(ContentFingerprint(text: a).exact == ContentFingerprint(text: b).exact)
    }

    /// Different words, numbers or order are different texts.
    @Test(arguments: [
        ("Drink water!", "Drink tea!"), ("Note 10:05", "Note 10:10"), ("water drink", "drink water"),
    ])
    func wordsMatter(a: String, b: String) {
        #expect(ContentFingerprint(text: a).exact != ContentFingerprint(text: b).exact)
    }

    /// A sketch only for texts of eight words or more; it survives its stored form, and equal
    /// words give similarity 1.
    @Test func sketches() {
        #expect(ContentFingerprint(text: "too short to sketch").sketch.isEmpty)
        let long = "the harbour master says three ships are due before the evening tide turns"
        let print = ContentFingerprint(text: long)
        #expect(!print.sketch.isEmpty)
        #expect(ContentFingerprint.sketch(from: print.signature) == print.sketch)
        #expect(
            ContentFingerprint.similarity(print.sketch, ContentFingerprint(text: long.uppercased() + "!").sketch) == 1)
    }

    /// The measured false-positive rate of the near-duplicate threshold: among 1,200 generated
    /// texts of 8–40 random words (~720,000 pairs), none reaches it; a text of 60–100 words with
    /// one word inserted does; the demo's hourly bulletins (the same but for the hour) do not.
    @Test func nearDuplicateThreshold() {
        var random = SeededRandom(seed: 42)
        let vocabulary = (0..<3_000).map { _ in
            String(
                (0..<(3 + Int(random.next() % 6))).map { _ in Character(UnicodeScalar(97 + UInt8(random.next() % 26))) }
            )
        }
        let texts = (0..<1_200).map { _ in
            (0..<(8 + Int(random.next() % 33))).map { _ in vocabulary[Int(random.next() % 3_000)] }
                .joined(separator: " ")
        }
        let sketches = texts.map { ContentFingerprint(text: $0).sketch }
        var pairs = 0
        var falsePositives = 0
        for i in sketches.indices {
            for j in (i + 1)..<sketches.count {
                pairs += 1
                if ContentFingerprint.similarity(sketches[i], sketches[j]) >= ContentFingerprint.nearDuplicateSimilarity
                {
                    falsePositives += 1
                }
            }
        }
        #expect(pairs == 719_400)
        #expect(falsePositives == 0)
        var found = 0
        let long = (0..<100).map { _ in
            (0..<(60 + Int(random.next() % 41))).map { _ in vocabulary[Int(random.next() % 3_000)] }
                .joined(separator: " ")
        }
        for text in long {
            var words = text.split(separator: " ").map(String.init)
            words.insert(vocabulary[Int(random.next() % 3_000)], at: Int(random.next() % UInt64(words.count)))
            let similarity = ContentFingerprint.similarity(
                ContentFingerprint(text: text).sketch, ContentFingerprint(text: words.joined(separator: " ")).sketch)
            if similarity >= ContentFingerprint.nearDuplicateSimilarity { found += 1 }
        }
        #expect(found == long.count)
        // The demo's bulletin (recipes/demo/author.yaml): the hour in the title and in the body.
        let bulletins = (0..<24).map {
            ContentFingerprint(
                text: "Harbour bulletin, 1 December \($0):00 UTC\nShips in port at \($0):00: 3. Next high tide in "
                    + "about six hours. Posted by demo_author, a Moltipass recipe."
            ).sketch
        }
        #expect(
            bulletins.indices.dropFirst().allSatisfy {
                ContentFingerprint.similarity(bulletins[$0 - 1], bulletins[$0])
                    < ContentFingerprint.nearDuplicateSimilarity
            })
    }

    /// The near-duplicate index finds what the full scan finds. Texts of 8–120 words and
    /// variants of them with none to three words replaced, inserted or dropped (similarities on
    /// both sides of the threshold, sketches from 6 hashes to full): every pair at the threshold
    /// shares a hash of both bands, and the guard's answer through the ledger's index is the
    /// full scan's best, for every variant, while it compares far fewer texts.
    @Test func nearDuplicateIndexFindsWhatTheScanFinds() throws {
        #expect(
            [6, 8, 9, 10, 20, 57, 58, 64].map(ContentFingerprint.nearDuplicateBand(count:)) == [1, 1, 2, 2, 3, 7, 7, 7])
        var random = SeededRandom(seed: 7)
        let vocabulary = (0..<2_000).map { index in "w\(index)" }
        func words(_ count: Int) -> [String] { (0..<count).map { _ in vocabulary[Int(random.next() % 2_000)] } }
        let originals = (0..<300).map { _ in words(8 + Int(random.next() % 113)) }
        let variants = originals.prefix(200).map { original in
            var edited = original
            for _ in 0..<Int(random.next() % 4) {
                let at = Int(random.next() % UInt64(edited.count))
                switch random.next() % 3 {
                case 0: edited[at] = vocabulary[Int(random.next() % 2_000)]
                case 1: edited.insert(vocabulary[Int(random.next() % 2_000)], at: at)
                default: edited.remove(at: at)
                }
            }
            return ContentFingerprint(text: edited.joined(separator: " ") + " !")
        }
        var ledger = Runner.LedgerSightings()
        var stored: [[UInt32]] = []
        for (index, original) in originals.enumerated() {
            let print = ContentFingerprint(text: original.joined(separator: " "))
            let at = Date(timeIntervalSince1970: 1_780_000_000 + Double(index) * 60)
            for record in print.records(account: "a", kind: "post", at: at, key: "k\(index)", excerpt: "t\(index)") {
                ledger.add(record)
            }
            stored.append(print.sketch)
        }
        let seen = ContentSightings(ledger: ledger)
        func band(_ sketch: [UInt32]) -> Set<UInt32> {
            Set(sketch.prefix(ContentFingerprint.nearDuplicateBand(count: sketch.count)))
        }
        var (atThreshold, belowThreshold, shortAtThreshold, candidates) = (0, 0, 0, 0)
        for variant in variants where !variant.sketch.isEmpty {
            var best: Double?
            for sketch in stored {
                let similarity = ContentFingerprint.similarity(variant.sketch, sketch)
                guard similarity >= ContentFingerprint.nearDuplicateSimilarity else {
                    if similarity > 0.7 { belowThreshold += 1 }
                    continue
                }
                #expect(!band(variant.sketch).isDisjoint(with: band(sketch)))
                best = max(best ?? 0, similarity)
            }
            let found = AccountPass.nearDuplicate(of: variant, among: [:], seen, except: "", since: .distantPast)
            #expect(found?.similarity == best)
            if best != nil { atThreshold += 1 }
            if best != nil, variant.sketch.count < 20 { shortAtThreshold += 1 }
            seen.forEachNearCandidate(of: variant.sketch) { _, _ in candidates += 1 }
        }
        // Both sides of the threshold were tried, short texts too, and the index compared each
        // variant with about 5 texts instead of all 300 (here 93 variants at the threshold, 5 of
        // them short; 81 pairs between 0.7 and it; 1,019 comparisons instead of 60,000).
        #expect(atThreshold >= 60 && shortAtThreshold >= 3 && belowThreshold >= 50)
        #expect(candidates < variants.count * 10)
    }
}
