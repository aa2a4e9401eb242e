/// A title or content with `{{ … }}` placeholders, parsed and checked when the recipe loads.
///
/// Placeholders: `{{ date }}` / `{{ date: EEEE d MMMM }}` (recipe zone), `{{ agent }}`, `{{ post.title }}` and the
/// other target fields (steps that act on a post), `{{ trigger.author }}` and the other trigger fields (reply and dm
/// steps), `{{ env.NAME }}` (names listed under `env:`), and `{{ random: [a, b, c] }}` (seeded per occurrence).
public struct Template: Sendable, Equatable {
    public enum Segment: Sendable, Equatable {
        case literal(String)
        case date(format: String)
        case agent
        case target(field: String)
        case environment(name: String)
        case random(choices: [String])
        /// A field of a generator's context (prompts only): `post.title`, `thread`, `recent_titles`, ….
        case context(field: String)
    }

    /// The text as written.
    public var source: String
    public var segments: [Segment]
    public var mark: Mark

    /// The fields of a target post a template may read.
    public static let targetFields = ["id", "title", "author", "submolt", "url", "score"]
    /// The fields of the inbound item a reply or dm step answers (issue 22), read as
    /// `{{ trigger.author }}` …: who wrote it, its text, its id, its kind (`reply`, `mention` or
    /// `dm`) and its thread (the parent chain, one `author: text` a line). A plain template reads
    /// them from `TemplateContext.target` under `trigger.FIELD`; a prompt from the generation
    /// context under the same name.
    public static let triggerFields = ["author", "content", "id", "kind", "thread"]
    /// The generation context's own placeholders in a prompt (besides `post.*`): the action
    /// (`post` or `comment`), the field's length limit, the thread a reply answers, the agent's
    /// recent titles, and the whole context as JSON.
    public static let contextFields = ["action", "max_length", "thread", "recent_titles", "context"]
    /// The fields of a topic (the queue item a generated post is about) a prompt may read as
    /// `{{ topic.title }}` …; empty when the post takes no topic.
    public static let topicFields = ["title", "content", "url"]
    /// ICU date-pattern letters accepted in `{{ date: … }}`.
    static let dateLetters = Set("GyYuMLdDEecaHhKkmsSzZXxQw")

    /// The length of the literal text alone: a lower bound on the rendered length.
    public var literalLength: Int {
        segments.reduce(0) { total, segment in
            if case .literal(let text) = segment { return total + MoltbookSizeLimits.length(text) }
            return total
        }
    }

    /// True if there are no placeholders.
    public var isLiteral: Bool { segments.allSatisfy { if case .literal = $0 { return true } else { return false } } }
}

/// Why a template was refused; `offset` is the character offset within the template text.
public struct TemplateError: Error, Sendable, Equatable {
    public var offset: Int
    public var message: String
    public var expected: String?
    public var suggestion: String?
}
