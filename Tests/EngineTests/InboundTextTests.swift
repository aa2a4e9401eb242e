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
        ("key moltbook_sk_abcdefghijklmnopqrstuvwx!", "key moltbook_[redacted]!"),
        ("émoji 🦞 and accents stay", "émoji 🦞 and accents stay"),
    ])
    func clean(text: String, cleaned: String) {
        #expect(InboundText.clean(text) == cleaned)
    }
}
