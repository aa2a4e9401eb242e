import CYAML

/// Composes one YAML document from libyaml's event stream into a `YAMLNode` tree, within `YAMLLimits`.
///
/// Aliases are expanded by value (Swift arrays share storage, so this is cheap), and every expansion
/// is charged its full node count against `maxNodes`: an alias bomb stops after a handful of events.
/// Only what aliases add is charged: the nodes written out are bounded by `maxBytes`, and a large
/// recipe without anchors (ten thousand jobs) is no bomb (issue 34, observation 8).
public struct YAMLComposer: Sendable {
    /// The tags the composer accepts (YAML core schema).
    public enum Tags {
        public static let str = "tag:yaml.org,2002:str"
        public static let int = "tag:yaml.org,2002:int"
        public static let bool = "tag:yaml.org,2002:bool"
        public static let float = "tag:yaml.org,2002:float"
        public static let null = "tag:yaml.org,2002:null"
        public static let seq = "tag:yaml.org,2002:seq"
        public static let map = "tag:yaml.org,2002:map"
        static let allowed: Set<String> = [str, int, bool, float, null, seq, map, "!"]
    }

    /// How much work one `compose` call did; tests use it to show hostile input stops early.
    public struct Statistics: Sendable, Equatable {
        /// libyaml events consumed.
        public var events = 0
        /// Nodes in the document with aliases expanded.
        public var expandedNodes = 0
        /// The part of `expandedNodes` that aliases added (what `maxNodes` bounds).
        public var aliasedNodes = 0
        /// Alias references seen.
        public var aliases = 0
    }

    public var limits: YAMLLimits

    public init(limits: YAMLLimits = .default) {
        self.limits = limits
    }

    /// `bytes` without a leading UTF-8 byte order mark (EF BB BF), which some Windows editors
    /// write: YAML allows one, libyaml (told the encoding) would read it as content. Positions
    /// stay right, as editors do not count the mark as a column.
    public static func withoutByteOrderMark(_ bytes: [UInt8]) -> [UInt8] {
        bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
    }

    /// Composes `bytes`; nil for an empty stream (no document at all).
    public func compose(_ bytes: [UInt8]) throws(YAMLError) -> YAMLNode? {
        var statistics = Statistics()
        return try compose(bytes, statistics: &statistics)
    }

    /// Composes `bytes`, reporting the work done in `statistics` even when it throws.
    public func compose(_ bytes: [UInt8], statistics: inout Statistics) throws(YAMLError) -> YAMLNode? {
        guard bytes.count <= limits.maxBytes else {
            throw .documentTooLarge(bytes: bytes.count, limit: limits.maxBytes)
        }
        if let bad = UTF8Check.firstInvalidByte(in: bytes) {
            throw .invalidUTF8(byteOffset: bad, at: UTF8Check.mark(ofByte: bad, in: bytes))
        }
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) == 1 else {
            throw .syntax(problem: "could not initialise the YAML parser (out of memory)", at: .start, context: nil)
        }
        defer { yaml_parser_delete(parser) }
        // libyaml keeps a pointer to the input: parse inside the buffer's lifetime.
        let result: Result<YAMLNode?, YAMLError> = bytes.withUnsafeBufferPointer {
            buffer -> Result<YAMLNode?, YAMLError> in
            yaml_parser_set_input_string(parser, buffer.baseAddress, buffer.count)
            yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
            var state = ComposerState(limits: limits)
            do throws(YAMLError) {
                let root = try state.run(parser)
                statistics = state.statistics
                return .success(root)
            } catch {
                statistics = state.statistics
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// The mutable half of composition: the open collections and the anchors seen so far.
private struct ComposerState {
    enum Frame {
        case sequence(mark: Mark, tag: String?, anchor: String?, items: [YAMLNode], weight: Int)
        case mapping(
            mark: Mark, tag: String?, anchor: String?, pairs: [YAMLNode.Pair], pendingKey: YAMLNode?,
            keys: [String: Mark], weight: Int)
    }

    let limits: YAMLLimits
    var statistics = YAMLComposer.Statistics()
    var stack: [Frame] = []
    /// Anchored nodes with their expanded node counts.
    var anchors: [String: (node: YAMLNode, weight: Int)] = [:]
    var root: YAMLNode?
    var documents = 0

    init(limits: YAMLLimits) { self.limits = limits }

    mutating func run(_ parser: UnsafeMutablePointer<yaml_parser_t>) throws(YAMLError) -> YAMLNode? {
        var event = yaml_event_t()
        while true {
            guard yaml_parser_parse(parser, &event) == 1 else { throw Self.syntaxError(parser.pointee) }
            defer { yaml_event_delete(&event) }
            statistics.events += 1
            let mark = Mark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
            switch event.type {
            case YAML_STREAM_END_EVENT:
                return root
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 { throw .multipleDocuments(at: mark) }
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let tag = try checkedTag(scalar.tag, at: mark)
                let value = Self.string(scalar.value, length: scalar.length)
                let node = YAMLNode(.scalar(value, Self.style(scalar.style)), mark: mark, tag: tag)
                try add(node, weight: 1, anchor: Self.optionalString(scalar.anchor), at: mark)
            case YAML_ALIAS_EVENT:
                statistics.aliases += 1
                guard statistics.aliases <= limits.maxAliases else {
                    throw .tooManyAliases(limit: limits.maxAliases, at: mark)
                }
                let name = Self.optionalString(event.data.alias.anchor) ?? ""
                guard let target = anchors[name] else { throw .undefinedAlias(name: name, at: mark) }
                var node = target.node
                node.mark = mark
                try charge(target.weight, at: mark, aliased: true)
                try add(node, weight: target.weight, anchor: nil, at: mark, alreadyCounted: true)
            case YAML_SEQUENCE_START_EVENT:
                let start = event.data.sequence_start
                try open(at: mark)
                let tag = try checkedTag(start.tag, at: mark)
                stack.append(
                    .sequence(mark: mark, tag: tag, anchor: Self.optionalString(start.anchor), items: [], weight: 1))
            case YAML_MAPPING_START_EVENT:
                let start = event.data.mapping_start
                try open(at: mark)
                let tag = try checkedTag(start.tag, at: mark)
                stack.append(
                    .mapping(
                        mark: mark, tag: tag, anchor: Self.optionalString(start.anchor), pairs: [],
                        pendingKey: nil, keys: [:], weight: 1))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let frame = stack.popLast() else { break }
                switch frame {
                case .sequence(let start, let tag, let anchor, let items, let weight):
                    try add(
                        YAMLNode(.sequence(items), mark: start, tag: tag), weight: weight, anchor: anchor, at: start,
                        alreadyCounted: true)
                case .mapping(let start, let tag, let anchor, let pairs, _, _, let weight):
                    try add(
                        YAMLNode(.mapping(pairs), mark: start, tag: tag), weight: weight, anchor: anchor, at: start,
                        alreadyCounted: true)
                }
            default:
                break
            }
        }
    }

    /// Checks depth and charges the collection node itself.
    mutating func open(at mark: Mark) throws(YAMLError) {
        guard stack.count < limits.maxDepth else { throw .tooDeep(limit: limits.maxDepth, at: mark) }
        try charge(1, at: mark)
    }

    /// Counts `weight` nodes; those an alias adds are bounded by `maxNodes`.
    mutating func charge(_ weight: Int, at mark: Mark, aliased: Bool = false) throws(YAMLError) {
        statistics.expandedNodes += weight
        guard aliased else { return }
        statistics.aliasedNodes += weight
        guard statistics.aliasedNodes <= limits.maxNodes else { throw .tooManyNodes(limit: limits.maxNodes, at: mark) }
    }

    /// Attaches a finished node to the open collection (or makes it the root).
    mutating func add(_ node: YAMLNode, weight: Int, anchor: String?, at mark: Mark, alreadyCounted: Bool = false)
        throws(YAMLError)
    {
        if !alreadyCounted { try charge(weight, at: mark) }
        if let anchor { anchors[anchor] = (node, weight) }
        guard let top = stack.popLast() else {
            root = node
            return
        }
        // Consumed, so that the bound array is the only reference and the append is in place: matching a copy of
        // the frame made every append copy the whole collection, and a 10,000-job recipe took seconds (O(n²)).
        switch consume top {
        case .sequence(let start, let tag, let anchorName, var items, let total):
            items.append(node)
            stack.append(.sequence(mark: start, tag: tag, anchor: anchorName, items: items, weight: total + weight))
        case .mapping(let start, let tag, let anchorName, var pairs, let pendingKey, var keys, let total):
            if let key = pendingKey {
                pairs.append(YAMLNode.Pair(key: key, value: node))
                stack.append(
                    .mapping(
                        mark: start, tag: tag, anchor: anchorName, pairs: pairs, pendingKey: nil,
                        keys: keys, weight: total + weight))
            } else {
                if let text = node.scalar {
                    if let first = keys[text] { throw .duplicateKey(key: text, first: first, second: node.mark) }
                    keys[text] = node.mark
                }
                stack.append(
                    .mapping(
                        mark: start, tag: tag, anchor: anchorName, pairs: pairs, pendingKey: node,
                        keys: keys, weight: total + weight))
            }
        }
    }

    func checkedTag(_ pointer: UnsafeMutablePointer<yaml_char_t>?, at mark: Mark) throws(YAMLError) -> String? {
        guard let tag = Self.optionalString(pointer) else { return nil }
        guard YAMLComposer.Tags.allowed.contains(tag) else {
            let shown = tag.hasPrefix("tag:yaml.org,2002:") ? "!!" + tag.dropFirst("tag:yaml.org,2002:".count) : tag
            throw .unsupportedTag(tag: shown, at: mark)
        }
        return tag == "!" ? nil : tag
    }

    static func syntaxError(_ parser: yaml_parser_t) -> YAMLError {
        let problem = parser.problem.map { String(cString: $0) } ?? "unknown error"
        let context = parser.context.map { String(cString: $0) }
        let mark = Mark(line: Int(parser.problem_mark.line) + 1, column: Int(parser.problem_mark.column) + 1)
        return .syntax(problem: problem, at: mark, context: context)
    }

    static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?, length: Int) -> String {
        guard let pointer else { return "" }
        return String(decoding: UnsafeBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    static func optionalString(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }

    static func style(_ style: yaml_scalar_style_t) -> YAMLNode.ScalarStyle {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: return .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: return .literal
        case YAML_FOLDED_SCALAR_STYLE: return .folded
        default: return .plain
        }
    }
}
