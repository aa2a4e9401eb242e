/// One node of a composed YAML document; every node knows where it starts.
public struct YAMLNode: Sendable, Equatable {
    /// How a scalar was written, which matters for type resolution (`"1"` is a string, `1` a number).
    public enum ScalarStyle: String, Sendable, Equatable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    /// One key/value pair of a mapping, in source order.
    public struct Pair: Sendable, Equatable {
        public var key: YAMLNode
        public var value: YAMLNode

        public init(key: YAMLNode, value: YAMLNode) {
            self.key = key
            self.value = value
        }
    }

    /// What the node holds.
    public enum Content: Sendable, Equatable {
        case scalar(String, ScalarStyle)
        case sequence([YAMLNode])
        case mapping([Pair])
    }

    public var content: Content
    /// Where the node starts.
    public var mark: Mark
    /// The resolved tag if one was written (`tag:yaml.org,2002:str` for `!!str`), else nil.
    public var tag: String?

    public init(_ content: Content, mark: Mark, tag: String? = nil) {
        self.content = content
        self.mark = mark
        self.tag = tag
    }

    /// The scalar text, or nil for a collection.
    public var scalar: String? {
        if case .scalar(let value, _) = content { return value }
        return nil
    }

    /// The scalar style, or nil for a collection.
    public var scalarStyle: ScalarStyle? {
        if case .scalar(_, let style) = content { return style }
        return nil
    }

    /// The items of a sequence, or nil.
    public var sequence: [YAMLNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    /// The pairs of a mapping, or nil.
    public var mapping: [Pair]? {
        if case .mapping(let pairs) = content { return pairs }
        return nil
    }

    /// True for a plain `null`, `~` or empty scalar with no tag forcing a string.
    public var isNull: Bool {
        guard case .scalar(let value, let style) = content, style == .plain else { return false }
        if tag == YAMLComposer.Tags.str { return false }
        return value.isEmpty || value == "~" || value == "null" || value == "Null" || value == "NULL"
    }

    /// A short human name for the node's kind, for diagnostics ("a mapping", "a list", "a string").
    public var kindDescription: String {
        switch content {
        case .scalar: return isNull ? "nothing (null)" : "a scalar"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }
}
