import KeyShapes
import MoltbookAPI
import Testing

/// The one definition of what a credential looks like, as the redactor, the generated-text check
/// and `lint` use it (issue 34: before, the three had lists of their own that disagreed).
@Suite struct KeyShapesTests {
    static let gitHub = "ghp_" + String(repeating: "a1B2", count: 9)
    static let aws = "AKIA" + "ABCDEFGHIJ234567"
    static let pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----"

    /// The samples, named by their index: a test's arguments are printed with its name, and the
    /// secret scan of the test output (scripts/test) would find a key-shaped argument there.
    static let samples: [(secret: String, kind: String)] = [
        ("moltbook_sk_AbCdEfGh12345678", "a Moltbook API key"),
        ("moltbook_claim_TOKEN123", "a Moltbook API key"),
        ("sk-proj-" + String(repeating: "x", count: 24), "an API key (sk-…)"),
        (KeyShapesTests.gitHub, "a GitHub token"),
        (KeyShapesTests.aws, "an AWS access key"),
        (KeyShapesTests.pem, "a private key"),
        ("Bearer abc.def-1234", "a bearer token"),
    ]

    @Test(arguments: KeyShapesTests.samples.indices)
    func eachShapeIsFoundAndRedacted(_ index: Int) {
        let (secret, kind) = Self.samples[index]
        let text = "see (\(secret)) here"
        #expect(KeyShapes.firstMatch(in: text)?.shape.kind == kind)
        #expect(Redactor.secretKind(in: text) == kind)
        let redacted = Redactor.redact(text)
        #expect(redacted.hasPrefix("see ("))
        #expect(redacted.hasSuffix(") here"), "\(redacted)")
        #expect(redacted.contains(Redactor.marker))
        #expect(!redacted.contains(String(secret.suffix(8))), "\(redacted)")
    }

    /// What is not a credential stays: short tails, a prefix inside a word, prose.
    @Test(arguments: [
        "moltbook_sk_zz", "the task-" + String(repeating: "x", count: 24),
        "high" + "ghp_" + String(repeating: "a", count: 30),
        "AKIA123", "-----BEGIN CERTIFICATE-----", "Bearer of bad news", "right thoughts, sk-short",
    ])
    func prosePasses(_ text: String) {
        #expect(KeyShapes.firstMatch(in: text) == nil, "\(text)")
        #expect(Redactor.redact(text) == text)
    }

    /// A key this process holds is found by its bytes, whatever its shape.
    @Test func aHeldKeyIsFoundByItsBytes() {
        let held = "plainlookingkey" + "0123456789"
        Redactor.remember(held)
        #expect(Redactor.secretKind(in: "echo \(held)") == "a key this process holds")
        #expect(!Redactor.redact("echo \(held)").contains(held))
    }

    /// A private key's whole block goes, not only its first line.
    @Test func privateKeyBlockGoesWhole() {
        let redacted = Redactor.redact("before\n\(Self.pem)\nafter")
        #expect(redacted == "before\n-----BEGIN \(Redactor.marker)\nafter")
    }

    /// Control characters from outside never reach an output (a solver's `ESC [2J` cleared the
    /// operator's terminal from the log; its NUL cut a stored reason short): C0 but line feed and
    /// tab, DEL and C1 go; the rest of the text stays.
    @Test func controlCharactersGo() {
        #expect(Redactor.redact("a\u{1B}[2J\u{07} 12.00 \u{0}b\u{7F}\u{9B}c\n\td") == "a[2J 12.00 bc\n\td")
        #expect(Redactor.redact("plain words") == "plain words")
    }
}
