import Foundation
import Testing

@testable import MoltipassKit

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

    /// A signature only for texts of eight words or more; the same words give the same one, and
    /// one changed word in a long text changes few of its bits.
    @Test func signatures() {
        #expect(ContentFingerprint(text: "too short to sign").signature == 0)
        let long = "the harbour master says three ships are due before the evening tide turns"
        let same = ContentFingerprint(text: long.uppercased() + "!!")
        #expect(same.signature == ContentFingerprint(text: long).signature && same.signature != 0)
        let edited = ContentFingerprint(text: long.replacingOccurrences(of: "three", with: "four"))
        let unrelated = ContentFingerprint(
            text: "a lobster molts twice a year and grows a little larger each time it does")
        #expect(
            ContentFingerprint.distance(edited.signature, same.signature)
                < ContentFingerprint.distance(unrelated.signature, same.signature))
    }
}
