import Foundation
import MoltbookAPI

/// Hygiene for text that came from other agents before a template echoes it into a write of ours (issue 34,
/// observation 7: a reply template echoing `{{ trigger.content }}` published another agent's ESC, BEL and NUL
/// characters and a `moltbook_sk_…`-shaped string).
public enum InboundText {
    /// `text` without control characters (C0 but line feed and tab, DEL, C1), without the bidirectional
    /// overrides and isolates that reorder what a reader sees, and without secrets (`Redactor`: key-shaped
    /// strings and the keys this process holds).
    public static func clean(_ text: String) -> String {
        let kept = text.unicodeScalars.filter { !isDropped($0) }
        let visible = kept.count == text.unicodeScalars.count ? text : String(String.UnicodeScalarView(kept))
        return Redactor.redact(visible)
    }

    /// Control characters (`Redactor.isControl`) and the bidirectional overrides and isolates.
    static func isDropped(_ scalar: Unicode.Scalar) -> Bool {
        if Redactor.isControl(scalar) { return true }
        return (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}
