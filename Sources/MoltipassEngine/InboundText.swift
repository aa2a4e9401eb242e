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

    static func isDropped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
