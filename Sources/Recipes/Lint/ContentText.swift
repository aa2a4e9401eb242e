/// Text as a fingerprinting server compares it: lowercase words of letters and digits, with case,
/// white space, punctuation and markup dropped. Shared by `lint`'s repeated-content check and
/// the engine's duplicate guard, so both call the same texts the same.
public enum ContentText {
    /// The words of `text`, lowercased.
    public static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in text.lowercased() {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `words(text)` joined by single spaces.
    public static func normalized(_ text: String) -> String { words(text).joined(separator: " ") }
}
