import Foundation
import MoltipassEngine
import Testing

/// `InboundText.clean`: what of another agent's text a template may echo (issue 34, observation 7).
@Suite("Inbound text hygiene")
struct InboundTextTests {
    @Test(arguments: [
        ("plain words stay", "plain words stay"),
        ("two\nlines\tand a tab", "two\nlines\tand a tab"),
        ("esc\u{1B}[31m bel\u{07} nul\u{0} cr\r del\u{7F} c1\u{85}", "esc[31m bel nul cr del c1"),
        ("\u{202E}reversed\u{202C} \u{2066}isolated\u{2069}", "reversed isolated"),
        ("émoji 🦞 and accents stay", "émoji 🦞 and accents stay"),
    ])
    func clean(text: String, cleaned: String) {
        #expect(InboundText.clean(text) == cleaned)
    }

    /// Assembled here, not a test argument: swift-testing prints arguments, and a key-shaped one fails the
    /// suite's scan of its output.
    @Test func aKeyShapedStringIsRedacted() {
        let bait = "moltbook_sk_" + String(repeating: "Zq9", count: 8)
        #expect(InboundText.clean("key \(bait)!") == "key moltbook_[redacted]!")
    }
}
