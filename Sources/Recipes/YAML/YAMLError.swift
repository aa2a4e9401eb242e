/// Why a YAML document could not be composed.
public enum YAMLError: Error, Sendable, Equatable {
    /// The document is larger than `YAMLLimits.maxBytes`; checked before any parsing.
    case documentTooLarge(bytes: Int, limit: Int)
    /// A byte sequence that is not UTF-8, at the first bad byte.
    case invalidUTF8(byteOffset: Int, at: Mark)
    /// libyaml rejected the text: its problem, where, and the construct it was reading.
    case syntax(problem: String, at: Mark, context: String?)
    /// Nesting deeper than `YAMLLimits.maxDepth`.
    case tooDeep(limit: Int, at: Mark)
    /// More alias references than `YAMLLimits.maxAliases`.
    case tooManyAliases(limit: Int, at: Mark)
    /// More nodes added by aliases than `YAMLLimits.maxNodes` (an alias bomb).
    case tooManyNodes(limit: Int, at: Mark)
    /// A `*name` with no earlier `&name`.
    case undefinedAlias(name: String, at: Mark)
    /// The same key twice in one mapping.
    case duplicateKey(key: String, first: Mark, second: Mark)
    /// A tag outside the YAML core set (`!!str`, `!!int`, `!!bool`, `!!float`, `!!null`, `!!seq`, `!!map`).
    case unsupportedTag(tag: String, at: Mark)
    /// A second document (`---`) in one file.
    case multipleDocuments(at: Mark)

    /// Where the problem is.
    public var mark: Mark {
        switch self {
        case .documentTooLarge: return .start
        case .invalidUTF8(_, let at), .syntax(_, let at, _), .tooDeep(_, let at), .tooManyAliases(_, let at),
            .tooManyNodes(_, let at), .undefinedAlias(_, let at), .unsupportedTag(_, let at),
            .multipleDocuments(let at):
            return at
        case .duplicateKey(_, _, let second): return second
        }
    }

    /// What is wrong, in one sentence.
    public var message: String {
        switch self {
        case .documentTooLarge(let bytes, let limit):
            return "document is \(bytes) bytes, over the limit of \(limit) bytes (max document size)"
        case .invalidUTF8(let offset, _):
            return "invalid UTF-8 at byte offset \(offset)"
        case .syntax(let problem, _, let context):
            if let context { return "YAML syntax error: \(problem) \(context)" }
            return "YAML syntax error: \(problem)"
        case .tooDeep(let limit, _):
            return "nesting deeper than the limit of \(limit) levels (max depth)"
        case .tooManyAliases(let limit, _):
            return "more than \(limit) alias references (max aliases)"
        case .tooManyNodes(let limit, _):
            return "aliases expand to more than \(limit) nodes (max nodes; an alias bomb?)"
        case .undefinedAlias(let name, _):
            return "alias `*\(name)` refers to no earlier anchor `&\(name)`"
        case .duplicateKey(let key, let first, _):
            return "duplicate key `\(key)`; first defined at \(first)"
        case .unsupportedTag(let tag, _):
            return "unsupported tag `\(tag)`"
        case .multipleDocuments:
            return "a second YAML document (`---`) in one file"
        }
    }

    /// What would have been accepted, when that helps.
    public var expected: String? {
        switch self {
        case .documentTooLarge: return "a recipe of at most 1 MiB"
        case .invalidUTF8: return "a UTF-8 encoded file"
        case .syntax(let problem, _, let context):
            if (context ?? "").contains("alias") || problem.contains("alias") {
                return "quote values that start with `*`, e.g. cron: \"*/5 * * * *\""
            }
            if problem.contains("tab") { return "spaces for indentation, not tabs" }
            return nil
        case .tooDeep: return "at most 64 levels of nesting"
        case .tooManyAliases, .tooManyNodes: return "fewer anchors and aliases"
        case .undefinedAlias: return "an anchor defined before its alias"
        case .duplicateKey: return "each key once per mapping"
        case .unsupportedTag: return "no tag, or one of !!str, !!int, !!bool, !!float, !!null, !!seq, !!map"
        case .multipleDocuments: return "one recipe per file"
        }
    }
}
