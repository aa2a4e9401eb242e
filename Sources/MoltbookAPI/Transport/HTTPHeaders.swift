/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Order and duplicates are kept as received; `subscript(name)` returns the first value.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var fields: [Field]

    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The first value of the header `name` (case-insensitive), or nil.
    public subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value of the header `name` (case-insensitive), in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// Header names compared ASCII-case-insensitively (names are ASCII tokens, RFC 9110), byte by
    /// byte: lowercasing both names on every lookup was a visible share of each response.
    static func sameName(_ first: String, _ second: String) -> Bool {
        var left = first.utf8.makeIterator()
        var right = second.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case (let a?, let b?):
                if a != b, Self.lower(a) != Self.lower(b) { return false }
            default: return false
            }
        }
    }

    /// A header value (or part of one) without the optional whitespace around it: spaces and
    /// tabs (RFC 9110), trimmed without Foundation's `CharacterSet` machinery.
    public static func trimmingOWS<S: StringProtocol>(_ value: S) -> String {
        var text = Substring(value)
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return String(text)
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    /// Appends a field, keeping any existing field of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with a single one.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field named `name`.
    public mutating func remove(name: String) {
        let lowered = name.lowercased()
        fields.removeAll { $0.name.lowercased() == lowered }
    }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }
}
