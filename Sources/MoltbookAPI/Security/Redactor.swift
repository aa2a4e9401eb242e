/// Removes anything that looks like a Moltbook secret from text that leaves the process
/// (error excerpts of server bodies, log lines).
///
/// The register endpoint echoes the new key and claim token in its body; an excerpt of such
/// a body must never carry them.
public enum Redactor {
    /// Replaces `moltbook_…` tokens of 8+ characters (keys, claim tokens, verification codes
    /// are all prefixed so) and `Bearer …` values with a marker.
    public static func redact(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            if let end = secretEnd(in: text, from: index, prefix: "moltbook_", minimumTail: 8) {
                output += "moltbook_[redacted]"
                index = end
            } else if let end = secretEnd(in: text, from: index, prefix: "Bearer ", minimumTail: 1) {
                output += "Bearer [redacted]"
                index = end
            } else {
                output.append(text[index])
                index = text.index(after: index)
            }
        }
        return output
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

    private static func secretEnd(in text: String, from start: String.Index, prefix: String, minimumTail: Int)
        -> String.Index?
    {
        guard text[start...].hasPrefix(prefix) else { return nil }
        var end = text.index(start, offsetBy: prefix.count)
        var tail = 0
        while end < text.endIndex, isTokenCharacter(text[end]) {
            end = text.index(after: end)
            tail += 1
        }
        return tail >= minimumTail ? end : nil
    }

    private static func isTokenCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        return (ascii >= 48 && ascii <= 57) || (ascii >= 65 && ascii <= 90) || (ascii >= 97 && ascii <= 122)
            || ascii == 45 || ascii == 95 || ascii == 46 || ascii == 126 || ascii == 43 || ascii == 47 || ascii == 61
    }
}
