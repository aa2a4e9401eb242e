import ChallengeSolver
import Foundation
import Testing

/// The normaliser and the number reader on the split and misspelt forms listed in challenges.md.
struct NumberReaderTests {
    /// Every split form of the doc's table reads as its number.
    @Test(arguments: [
        ("tW/eN tY", 20), ("tW eN tY", 20), ("tW]eNn-Tyy", 20), ("TwEnT y", 20), ("tWwEeNnTtYy", 20),
        ("T]wE/nT y", 20), ("tHiR tYy", 30), ("ThIr Ty", 30), ("ThI rT y", 30), ("tHiRrTy", 30),
        ("ThHiIrRtTyY", 30), ("thI.rTy", 30), ("ThR eE", 3), ("tH/rEe", 3), ("T hReE", 3), ("thR.ee", 3),
        ("ThHrReEe", 3), ("FiV e", 5), ("fIiV e", 5), ("F iV e", 5), ("fI[vE", 5), ("fIiV-e", 5), ("FfIiVvEe", 5),
        ("SeV eN", 7), ("S eV eN", 7), ("sE vE n", 7), ("sEeVvEeN", 7), ("TwElV e", 12), ("TwE]lVe", 12),
        ("T wE lV e", 12), ("TwWeElLvEe", 12), ("fOuR tEeN", 14), ("FoUr.TeEn", 14), ("fOuUrR tEeEeEnN", 14),
        ("fI fTeEn", 15), ("FiF/TeEn", 15), ("fIfT]eeN", 15),
    ])
    func splitForms(_ text: String, _ value: Int) {
        #expect(NumberReader.numbers("a lobster has \(text) newtons") == [Decimal(value)])
    }

    /// Misspellings the server accepted, fused compounds and decimals.
    @Test(arguments: [
        ("fife", "5"), ("thrirty", "30"), ("tHrItY", "30"), ("twenny", "20"), ("fourleen", "14"),
        ("fOoOuRrFfEeTeE nEeN", "14"), ("FyV e", "5"), ("G hHrEe", "3"), ("trhee", "3"), ("SiRrThIrTy", "30"),
        ("seeven", "7"), ("thirtyfive", "35"), ("TwEnNyThReE", "23"), ("TwEnTy-TwO", "22"),
        ("twenty three", "23"), ("two point five", "2.5"), ("eighty five point five", "85.5"), ("23", "23"),
        ("2.5", "2.5"), ("fOoLuR", "4"), ("thRiEe", "3"), ("tHrIrTy", "30"), ("tHiRrTyY", "30"),
        ("tHiRrTyY fIiVvEe", "35"), ("tW eN tY tH rEe", "23"), ("Tw * EnTy", "20"), ("fO - uR", "4"),
        ("Nn Ii Nn Ee Tt Ee Ee Nn", "19"), ("ThWeN tY", "20"), ("ThReEcM", "3"), ("sEvEnFoOlDlY", "7"),
    ])
    func misspellingsAndCompounds(_ text: String, _ value: String) {
        #expect(NumberReader.numbers("a lobster has \(text) newtons") == [Decimal(string: value)!])
    }

    /// Distractors: repeated tens words, stray units and self-corrections leave the intended number.
    @Test(arguments: [
        ("for ty forty", "40"), ("tW/ eNnT yY~ tWweEnN ttyy ThRrEe", "23"), ("tW/eN tY TwO ThReE", "23"),
        ("tW/eN tY ThIrTy? Noo oops um tW]eNtY ThReE", "23"), ("tHiRtY / TwO", "32"),
    ])
    func distractors(_ text: String, _ value: String) {
        #expect(NumberReader.numbers("a lobster swims at \(text) meters") == [Decimal(string: value)!])
    }

    /// Self-corrections drop the corrected number, also when the correction word is split or after a "no".
    @Test(arguments: [
        ("tW/eN tY ThIrTy? Noo oops um tW]eNtY ThReE", "23"), ("tWeNty- SiX? um Um, nO, sIxTeEn", "16"),
        ("ThIrTy ThReE lI kE? wW aI t No ThIrTy SeVeN", "37"), ("fOrTy? OoOoP p Ss tWeNtY", "20"),
    ])
    func corrections(_ text: String, _ value: String) {
        #expect(NumberReader.numbers("a lobster swims at \(text) meters") == [Decimal(string: value)!])
    }

    /// Ordinary words that look like numbers stay words.
    @Test(arguments: [
        "there", "fire", "night", "weight", "often listen", "lis ten", "the re", "fight", "PhY sIx Ix Al", "drops by",
    ])
    func ordinaryWords(_ text: String) {
        #expect(NumberReader.numbers("a lobster \(text) swims") == [])
    }

    /// The normaliser keeps a standalone operator, drops noise inside and around words, lowercases.
    @Test func normaliserTokens() {
        #expect(
            ChallengeNormalizer.tokens("A] lO^bSt-Er 23 - sEvEn * {x} ~ 2.5?")
                == [
                    .word("a"), .word("lobster"), .digits(23), .symbol("-"), .word("seven"), .symbol("*"),
                    .symbol("x"), .digits(2.5),
                ])
        #expect(ChallengeNormalizer.collapse("thhrreee") == "thre")
        #expect(ChallengeNormalizer.stream("SlO wS bY] 7") == "slowsby#")
    }

    /// Two decimals, half-up, and strict parsing of a command solver's output.
    @Test func answerFormat() {
        #expect(AnswerFormat.twoDecimals(15) == "15.00")
        #expect(AnswerFormat.twoDecimals(Decimal(string: "2.675")!) == "2.68")
        #expect(AnswerFormat.twoDecimals(Decimal(string: "-3.5")!) == "-3.50")
        #expect(AnswerFormat.twoDecimals(Decimal(1) / Decimal(3)) == "0.33")
        #expect(AnswerFormat.parse(" 15.00\n") == 15)
        #expect(AnswerFormat.parse("+7") == 7)
        #expect(AnswerFormat.parse("-7.5") == Decimal(string: "-7.5"))
        #expect(AnswerFormat.parse("15 newtons") == nil)
        #expect(AnswerFormat.parse("") == nil)
        #expect(AnswerFormat.parse("1.2.3") == nil)
    }
}
