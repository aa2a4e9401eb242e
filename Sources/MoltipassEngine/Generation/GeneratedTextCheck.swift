import Foundation
import Generation
import MoltbookAPI
import Recipes
import Synchronization

/// The checks generated text passes before it is journaled (issue 21), besides the duplicate
/// guard: the fields' limits, the secret scan, the recipe's deny-list. Text that fails one is
/// generated again (up to `attempts`), then the occurrence is skipped with the reason.
public enum GeneratedTextCheck {
    /// The title and content a generated text gives a write of `kind`, or why it cannot.
    ///
    /// A post takes `{"title","content"}` as given; from plain text its first line is the title
    /// (a leading Markdown `#` dropped) and the rest the content. A comment takes the content.
    static func fields(of text: GeneratedText, for kind: PlannedWrite.Kind) -> Result<(String?, String), Refusal> {
        switch kind {
        case .post:
            var title = text.title
            var content = text.content
            if title == nil {
                let lines = content.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
                title = lines.first.map { String($0).trimmingCharacters(in: .whitespaces) }
                    .map { String($0.drop { $0 == "#" }).trimmingCharacters(in: .whitespaces) }
                content = lines.count > 1 ? String(lines[1]).trimmingCharacters(in: .whitespacesAndNewlines) : ""
            }
            guard let title, !title.trimmingCharacters(in: .whitespaces).isEmpty else {
                return .failure(Refusal("the text has no title"))
            }
            guard !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                return .failure(Refusal("the text has a title but no content (a title line, then the post)"))
            }
            return .success((title, content))
        default:
            guard !text.content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                return .failure(Refusal("the text is empty"))
            }
            return .success((nil, text.content))
        }
    }

    /// The title and content `text` gives a write of `kind`, or the first check that refuses it
    /// (the duplicate guard aside: it needs the agent's state). `moltipass generate` prints this.
    public static func verdict(of text: GeneratedText, for kind: PlannedWrite.Kind, deny: [String])
        -> Result<(title: String?, content: String), Refusal>
    {
        switch fields(of: text, for: kind) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let (title, content)):
            if let refusal = refusal(title: title, content: content, kind: kind, deny: deny) {
                return .failure(refusal)
            }
            return .success((title, content))
        }
    }

    /// Why the text must not be sent, or nil.
    static func refusal(title: String?, content: String, kind: PlannedWrite.Kind, deny: [String]) -> Refusal? {
        if let refusal = limitRefusal(title: title, content: content, kind: kind) { return refusal }
        for field in [title, content].compactMap({ $0 }) {
            if let refusal = controlRefusal(field) ?? secretRefusal(field) ?? denyRefusal(field, deny: deny) {
                return refusal
            }
        }
        return nil
    }

    /// A field over Moltbook's length for a write of `kind`.
    static func limitRefusal(title: String?, content: String, kind: PlannedWrite.Kind) -> Refusal? {
        let length: (String) -> Int = MoltbookSizeLimits.length
        if let title, length(title) > MoltbookSizeLimits.title {
            return Refusal("the title is \(length(title)) characters, over Moltbook's \(MoltbookSizeLimits.title)")
        }
        let limit = contentLimit(for: kind)
        if length(content) > limit {
            return Refusal(
                "the text is \(length(content)) characters, over Moltbook's \(limit) for a \(kind.rawValue)")
        }
        return nil
    }

    /// Moltbook's length for a post's content, a comment, or a direct message.
    static func contentLimit(for kind: PlannedWrite.Kind) -> Int {
        switch kind {
        case .post: MoltbookSizeLimits.content
        case .directMessage: MoltbookSizeLimits.directMessage
        case .comment, .reply, .upvotePost, .downvotePost, .upvoteComment, .downvoteComment, .follow, .unfollow,
            .subscribe, .unsubscribe, .approveRequest:
            MoltbookSizeLimits.comment
        }
    }

    /// Control characters other than line breaks and tabs.
    static func controlRefusal(_ field: String) -> Refusal? {
        field.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\t" && $0 != "\r" })
            ? Refusal("the text holds control characters") : nil
    }

    /// Something that looks like a credential.
    static func secretRefusal(_ field: String) -> Refusal? {
        secretKind(in: field).map { Refusal("the text contains what looks like \($0); never published") }
    }

    /// The first deny pattern that matches.
    static func denyRefusal(_ field: String, deny: [String]) -> Refusal? {
        deny.first { matches($0, field) }.map { Refusal("the text matches the deny pattern `\($0)`") }
    }

    /// A refusal's reason, in words (never the text itself: it may hold the secret).
    public struct Refusal: Error, Equatable {
        public var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// Credentials a model could echo back (its key, one it saw in a prompt): the keys this
    /// process holds and every `KeyShapes` shape, as the redactor sees them.
    static func secretKind(in text: String) -> String? { Redactor.secretKind(in: text) }

    private static let compiled = Mutex<[String: NSRegularExpression]>([:])

    /// Whether `pattern` (an ICU expression, checked when the recipe loaded) matches `text`.
    static func matches(_ pattern: String, _ text: String) -> Bool {
        let regex = compiled.withLock { cache -> NSRegularExpression? in
            if let regex = cache[pattern] { return regex }
            let regex = try? NSRegularExpression(pattern: pattern)
            cache[pattern] = regex
            return regex
        }
        guard let regex else { return false }
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}
