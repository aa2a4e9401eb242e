import Synchronization

/// The one redaction boundary (issue 34): removes secrets from every text that came from outside the
/// process (a server's body, a generator's or a solver program's output, a model's answer) before it
/// enters a report, a log line, a state row or an error.
///
/// Two kinds of secret go: the keys this process holds, by their own bytes whatever their shape (every
/// `APIKey` and `ModelKey` made is remembered, `remember(_:)`), and anything key-shaped — `moltbook_…`
/// tokens of 8+ characters (keys, claim tokens and verification codes are all prefixed so), `sk-…`
/// tokens of 20+ (the hosted model providers' keys) and `Bearer …` values. The register endpoint echoes
/// the new key and claim token in its body; a generator may print its environment: neither reaches
/// an output.
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

    /// `text` without the remembered secrets' bytes and without key-shaped tokens.
    public static func redact(_ text: String) -> String {
        var text = text
        let secrets = remembered.withLock { set in set.filter { text.contains($0) } }
        for secret in secrets.sorted(by: { $0.count > $1.count }) {
            text = text.replacingOccurrences(of: secret, with: marker)
        }
        guard text.contains("moltbook_") || text.contains("Bearer ") || text.contains("sk-") else { return text }
        var output = ""
        output.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            if let end = secretEnd(in: text, from: index, prefix: "moltbook_", minimumTail: 8) {
                output += "moltbook_" + marker
                index = end
            } else if let end = secretEnd(in: text, from: index, prefix: "Bearer ", minimumTail: 1) {
                output += "Bearer " + marker
                index = end
            } else if startsWord(text, at: index),
                let end = secretEnd(in: text, from: index, prefix: "sk-", minimumTail: 20, keyCharacter: isKeyCharacter)
            {
                output += "sk-" + marker
                index = end
            } else {
                output.append(text[index])
                index = text.index(after: index)
            }
        }
        return output
    }

    /// Whether a token starts at `index` (the text's start, or after a character that is not a letter or digit).
    private static func startsWord(_ text: String, at index: String.Index) -> Bool {
        guard index > text.startIndex else { return true }
        let before = text[text.index(before: index)]
        return !(before.isLetter || before.isNumber)
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

    private static func secretEnd(
        in text: String, from start: String.Index, prefix: String, minimumTail: Int,
        keyCharacter: (Character) -> Bool = isTokenCharacter
    ) -> String.Index? {
        guard text[start...].hasPrefix(prefix) else { return nil }
        var end = text.index(start, offsetBy: prefix.count)
        var tail = 0
        while end < text.endIndex, keyCharacter(text[end]) {
            end = text.index(after: end)
            tail += 1
        }
        return tail >= minimumTail ? end : nil
    }

    /// A character of a model provider's key (`sk-proj-…`, `sk-ant-…`): letters, digits, `-` and `_`; a full stop
    /// after one ends the sentence, not the key.
    private static func isKeyCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        return (ascii >= 48 && ascii <= 57) || (ascii >= 65 && ascii <= 90) || (ascii >= 97 && ascii <= 122)
            || ascii == 45 || ascii == 95
    }

    private static func isTokenCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        return (ascii >= 48 && ascii <= 57) || (ascii >= 65 && ascii <= 90) || (ascii >= 97 && ascii <= 122)
            || ascii == 45 || ascii == 95 || ascii == 46 || ascii == 126 || ascii == 43 || ascii == 47 || ascii == 61
    }
}
