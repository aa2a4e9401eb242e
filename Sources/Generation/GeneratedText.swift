import Foundation

/// What a generator produced for one write (issue 21): the text of a comment, or a post's title
/// and content. Only fills text: nothing a generator returns chooses the action, the target or
/// the limits.
public struct GeneratedText: Sendable, Equatable {
    /// A post's title; nil for a comment.
    public var title: String?
    public var content: String

    public init(title: String? = nil, content: String) {
        self.title = title
        self.content = content
    }
}
