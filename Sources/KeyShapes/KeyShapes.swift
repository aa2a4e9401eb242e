/// What a credential looks like: the one definition (issue 34, "one redaction boundary") that the
/// redactor (`MoltbookAPI.Redactor`: every text from outside the process, before a report, a log
/// line, a state row or an error), the check of generated text (never published) and `lint`
/// (never in a recipe's content) all use. Before, each had its own list, and the three disagreed
/// (a GitHub token was refused in a generated post but printed in a log).
///
/// A leaf target, Swift only: `Recipes` and `MoltbookAPI` both need it and neither depends on
/// the other.
public enum KeyShapes {
    /// One kind of credential.
    public struct Shape: Sendable, Equatable {
        /// What it is, in the words of a refusal or a finding ("a GitHub token").
        public let kind: String
        /// What it looks like, in the words of the docs' tables.
        public let looksLike: String
        /// The text a match starts with (one of them); kept in front of the redaction marker.
        let prefixes: [String]
        /// How many of `characters` must follow the prefix.
        let minimumTail: Int
        let characters: Characters
        /// Whether the match must start a word (not follow a letter or digit).
        let startsWord: Bool

        enum Characters: Sendable, Equatable {
            /// Letters, digits and `- _ . ~ + / =` (a token in a header or a URL).
            case token
            /// Letters, digits, `-` and `_` (a full stop after a key ends the sentence).
            case key
            /// Letters and digits.
            case alphanumeric
            /// Capital letters and digits.
            case capitalsAndDigits
            /// A PEM block: `-----BEGIN … PRIVATE KEY-----` up to its `-----END … KEY-----` line
            /// (or the end of the text).
            case privateKeyBlock
        }
    }

    /// Every shape, in the order a text is searched and the docs list them.
    public static let all: [Shape] = [
        Shape(
            kind: "a Moltbook API key",
            looksLike: "`moltbook_` and 8 or more letters, digits or `- _ . ~ + / =` (`moltbook_sk_…`, claim tokens)",
            prefixes: ["moltbook_"], minimumTail: 8, characters: .token, startsWord: false),
        Shape(
            kind: "an API key (sk-…)",
            looksLike: "`sk-` (`sk-proj-`, `sk-ant-`) and 20 or more letters, digits, `_`, `-`",
            prefixes: ["sk-"], minimumTail: 20, characters: .key, startsWord: true),
        Shape(
            kind: "a GitHub token",
            looksLike: "`ghp_`, `gho_`, `ghu_`, `ghs_` or `ghr_` and 30 or more letters or digits",
            prefixes: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"], minimumTail: 30, characters: .alphanumeric,
            startsWord: true),
        Shape(
            kind: "an AWS access key", looksLike: "`AKIA` and 16 capital letters or digits",
            prefixes: ["AKIA"], minimumTail: 16, characters: .capitalsAndDigits, startsWord: true),
        Shape(
            kind: "a private key", looksLike: "`-----BEGIN … PRIVATE KEY-----`",
            prefixes: ["-----BEGIN "], minimumTail: 0, characters: .privateKeyBlock, startsWord: false),
        Shape(
            kind: "a bearer token", looksLike: "`Bearer ` and 8 or more token characters",
            prefixes: ["Bearer "], minimumTail: 8, characters: .token, startsWord: false),
    ]

    /// A credential found in a text: its shape and where it is.
    public struct Match: Sendable {
        public let shape: Shape
        public let prefix: String
        public let range: Range<String.Index>
    }

    /// The first credential in `text`, if any.
    public static func firstMatch(in text: String) -> Match? {
        guard mayContain(text) else { return nil }
        var index = text.startIndex
        while index < text.endIndex {
            if let found = match(in: text, at: index) { return found }
            index = text.index(after: index)
        }
        return nil
    }

    /// `text` with every credential replaced by its prefix and `marker`.
    public static func redact(_ text: String, marker: String) -> String {
        guard mayContain(text) else { return text }
        var output = ""
        output.reserveCapacity(text.count)
        var index = text.startIndex
        while index < text.endIndex {
            if let found = match(in: text, at: index) {
                output += found.prefix + marker
                index = found.range.upperBound
            } else {
                output.append(text[index])
                index = text.index(after: index)
            }
        }
        return output
    }

    /// Whether `text` holds any shape's first prefix characters at all: most texts do not, and
    /// are passed over without a walk.
    static func mayContain(_ text: String) -> Bool {
        all.contains { shape in shape.prefixes.contains { text.contains($0) } }
    }

    /// The credential that starts at `index`, if one does.
    static func match(in text: String, at index: String.Index) -> Match? {
        let rest = text[index...]
        for shape in all {
            guard let prefix = shape.prefixes.first(where: { rest.hasPrefix($0) }) else { continue }
            if shape.startsWord, index > text.startIndex {
                let before = text[text.index(before: index)]
                if before.isLetter || before.isNumber { continue }
            }
            let afterPrefix = text.index(index, offsetBy: prefix.count)
            if let end = end(of: shape, in: text, from: afterPrefix) {
                return Match(shape: shape, prefix: prefix, range: index..<end)
            }
        }
        return nil
    }

    /// Where the match of `shape` whose prefix ends at `start` ends; nil when it is too short.
    static func end(of shape: Shape, in text: String, from start: String.Index) -> String.Index? {
        if shape.characters == .privateKeyBlock { return privateKeyEnd(in: text, from: start) }
        var end = start
        var tail = 0
        while end < text.endIndex, accepts(shape.characters, text[end]) {
            end = text.index(after: end)
            tail += 1
        }
        return tail >= shape.minimumTail ? end : nil
    }

    /// `[A-Z ]*PRIVATE KEY-----` after `-----BEGIN `, then the block up to the end of its END line.
    static func privateKeyEnd(in text: String, from start: String.Index) -> String.Index? {
        var index = start
        while index < text.endIndex, let ascii = text[index].asciiValue, (ascii >= 65 && ascii <= 90) || ascii == 32 {
            index = text.index(after: index)
        }
        let label = text[start..<index]
        guard label.hasSuffix("PRIVATE KEY"), text[index...].hasPrefix("-----") else { return nil }
        guard let endLine = text[index...].firstRange(of: "-----END ") else { return text.endIndex }
        guard let close = text[endLine.upperBound...].firstRange(of: "-----") else { return text.endIndex }
        return close.upperBound
    }

    static func accepts(_ characters: Shape.Characters, _ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        let digit = ascii >= 48 && ascii <= 57
        let capital = ascii >= 65 && ascii <= 90
        let small = ascii >= 97 && ascii <= 122
        switch characters {
        case .token:
            return digit || capital || small || [45, 95, 46, 126, 43, 47, 61].contains(ascii)
        case .key:
            return digit || capital || small || ascii == 45 || ascii == 95
        case .alphanumeric:
            return digit || capital || small
        case .capitalsAndDigits:
            return digit || capital
        case .privateKeyBlock:
            return false
        }
    }
}
