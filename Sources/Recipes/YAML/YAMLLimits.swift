/// Bounds applied while composing a YAML document, so hostile input fails fast.
public struct YAMLLimits: Sendable, Equatable {
    /// The largest document accepted, checked before parsing.
    public var maxBytes: Int
    /// The deepest nesting of sequences and mappings.
    public var maxDepth: Int
    /// The most alias references (`*name`) in one document.
    public var maxAliases: Int
    /// The most nodes that aliases may add once expanded (the nodes written out are bounded by `maxBytes`).
    public var maxNodes: Int

    public init(maxBytes: Int = 1 << 20, maxDepth: Int = 64, maxAliases: Int = 100, maxNodes: Int = 100_000) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxAliases = maxAliases
        self.maxNodes = maxNodes
    }

    /// 1 MiB, depth 64, 100 aliases, 100,000 nodes added by aliases.
    public static let `default` = YAMLLimits()
}
