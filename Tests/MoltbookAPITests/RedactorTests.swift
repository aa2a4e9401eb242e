import Foundation
import MoltbookAPI
import Testing

/// The one redactor (issue 34): key-shaped tokens, and the keys this process holds by their own bytes.
@Suite("Redactor")
struct RedactorTests {
    /// Key-shaped tokens. The keys are assembled here, not passed as test arguments: swift-testing prints its
    /// arguments, and scripts/test fails on a key-shaped string in the test output.
    @Test func keyShapedTokens() {
        let tail = String(repeating: "Ab9", count: 8)
        #expect(Redactor.redact("key moltbook_sk_\(tail) here") == "key moltbook_[redacted] here")
        #expect(Redactor.redact("model sk-proj-\(tail).") == "model sk-[redacted].")
        #expect(Redactor.redact("{\"key\":\"sk-ant-api03-\(tail)\"}") == "{\"key\":\"sk-[redacted]\"}")
        #expect(Redactor.redact("Authorization: Bearer \(tail).x") == "Authorization: Bearer [redacted]")
    }

    @Test(arguments: [
        // Not keys: too short, or "sk-" inside a word.
        ("sk-short and moltbook_x", "sk-short and moltbook_x"),
        ("a risk-assessment-of-the-day-and-night report", "a risk-assessment-of-the-day-and-night report"),
        ("", ""),
    ])
    func notKeys(text: String, redacted: String) {
        #expect(Redactor.redact(text) == redacted)
    }

    /// A key of any shape (a local model server's, another server's) is removed by its bytes once this process
    /// has wrapped it in an `APIKey` (or a `ModelKey`, which wraps one); a value too short to be a key is not
    /// remembered, so ordinary words stay.
    @Test func aKeysOwnBytesWhateverItsShape() {
        let raw = "zz9-plural-z-alpha-" + UUID().uuidString
        #expect(Redactor.redact("stderr: \(raw)!") == "stderr: \(raw)!")
        _ = APIKey(raw + "\n")
        #expect(Redactor.redact("stderr: \(raw)!") == "stderr: [redacted]!")
        #expect(Redactor.redact("twice \(raw) \(raw)") == "twice [redacted] [redacted]")
        _ = APIKey("tide")
        #expect(Redactor.redact("the tide turns") == "the tide turns")
    }
}
