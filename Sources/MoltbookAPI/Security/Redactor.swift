import KeyShapes
import Synchronization

/// The one redaction boundary (issue 34): removes secrets from every text that came from outside the
/// process (a server's body, a generator's or a solver program's output, a model's answer) before it
/// enters a report, a log line, a state row or an error.
///
/// Two kinds of secret go: the keys this process holds, by their own bytes whatever their shape (every
/// `APIKey` and `ModelKey` made is remembered, `remember(_:)`), and anything key-shaped (`KeyShapes`:
/// `moltbook_…` tokens of 8+ characters — keys, claim tokens and verification codes are all prefixed
/// so —, the hosted model providers' `sk-…` keys, GitHub and AWS keys, private keys, `Bearer …`
/// values). The register endpoint echoes the new key and claim token in its body; a generator may
/// print its environment: neither reaches an output.
public enum Redactor {
    /// The marker a secret's bytes are replaced with.
    public static let marker = "[redacted]"

    /// The shortest secret remembered by its bytes: shorter values (a test's "k") would blank ordinary words.
    static let shortestRemembered = 12

    private static let remembered = Mutex<Set<String>>([])

    /// Remembers `secret`'s bytes, so that `redact` removes them wherever they appear. Called by `APIKey` for
    /// every key it wraps.
    public static func remember(_ secret: String) {
        guard secret.utf8.count >= shortestRemembered else { return }
        _ = remembered.withLock { $0.insert(secret) }
    }

    /// `text` without control characters (`isControl`), the remembered secrets' bytes and key-shaped
    /// tokens. Control characters go too (issue 34: a solver program's `ESC [2J` cleared the operator's
    /// terminal from the log, and its NUL cut the stored pause reason short).
    public static func redact(_ text: String) -> String {
        var text = text
        if text.unicodeScalars.contains(where: isControl) {
            text = String(String.UnicodeScalarView(text.unicodeScalars.filter { !isControl($0) }))
        }
        let secrets = remembered.withLock { set in set.filter { text.contains($0) } }
        for secret in secrets.sorted(by: { $0.count > $1.count }) {
            text = text.replacingOccurrences(of: secret, with: marker)
        }
        return KeyShapes.redact(text, marker: marker)
    }

    /// A control character that no output keeps: C0 but line feed and tab, DEL, C1.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00...0x1F, 0x7F...0x9F: true
        default: false
        }
    }

    /// The kind of the first secret in `text` (a key this process holds, or one of `KeyShapes`),
    /// if any: what generated text is refused for.
    public static func secretKind(in text: String) -> String? {
        if remembered.withLock({ set in set.contains { text.contains($0) } }) { return "a key this process holds" }
        return KeyShapes.firstMatch(in: text)?.shape.kind
    }

    /// A redacted excerpt of at most `limit` characters, with a marker when cut. Markup is
    /// reduced to its text first, so an HTML error page shows its message, not its doctype.
    public static func excerpt(_ text: String, limit: Int = 200) -> String {
        let redacted = redact(visibleText(text))
        guard redacted.count > limit else { return redacted }
        return String(redacted.prefix(limit)) + "…"
    }

    /// The text of an HTML page (tags dropped, whitespace collapsed); other text unchanged.
    static func visibleText(_ text: String) -> String {
        let trimmed = text.drop { $0.isWhitespace }
        guard trimmed.hasPrefix("<") else { return text }
        var output = ""
        var inTag = false
        for character in trimmed {
            if character == "<" {
                inTag = true
                output.append(" ")
            } else if character == ">" {
                inTag = false
            } else if !inTag {
                output.append(character)
            }
        }
        return output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
