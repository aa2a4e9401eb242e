import Foundation

/// A parsed JSON document, for tolerant reading of Moltbook's varying envelopes.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses `data`, taking raw control characters inside strings literally (Moltbook has served
    /// post content with unescaped control bytes that strict parsers reject). Throws `JSONParseError`.
    ///
    /// Accepts what `JSONDecoder` accepted after `escapingControlCharacters`, with the same values
    /// (see `JSONParser`), about 30 times faster.
    public static func parse(_ data: Data) throws -> JSONValue {
        try JSONParser.parse(data)
    }

    /// Escapes bytes below 0x20 that appear inside JSON strings as `\u00XX`.
    static func escapingControlCharacters(_ data: Data) -> Data {
        var needsWork = false
        for byte in data where byte < 0x20 && byte != 0x0A && byte != 0x0D && byte != 0x09 {
            needsWork = true
            break
        }
        if !needsWork && !data.contains(0x0A) && !data.contains(0x09) && !data.contains(0x0D) { return data }
        var output = Data()
        output.reserveCapacity(data.count)
        var inString = false
        var escaped = false
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                } else if byte < 0x20 {
                    output.append(contentsOf: Array(String(format: "\\u%04x", byte).utf8))
                    continue
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            }
            output.append(byte)
        }
        return output
    }

    // MARK: Access

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var object: [String: JSONValue]? {
        if case .object(let object) = self { return object }
        return nil
    }

    public var array: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// A string, or a number rendered as a string (ids are sometimes numeric).
    public var string: String? {
        switch self {
        case .string(let value): value
        case .number(let value): value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        default: nil
        }
    }

    /// A number, or a string holding one (counts were seen as strings).
    public var double: Double? {
        switch self {
        case .number(let value): value
        case .string(let value): Double(value.trimmingCharacters(in: .whitespaces))
        default: nil
        }
    }

    public var int: Int? {
        guard let value = double, value.isFinite, abs(value) < 9e15 else { return nil }
        return Int(value)
    }

    /// A boolean, also from `"true"`/`"false"` and 0/1.
    public var bool: Bool? {
        switch self {
        case .bool(let value): value
        case .number(let value): value != 0
        case .string(let value):
            ["true", "1", "yes"].contains(value.lowercased())
                ? true
                : (["false", "0", "no"].contains(value.lowercased()) ? false : nil)
        default: nil
        }
    }

    /// Serialises back to compact JSON with sorted keys (`JSONWriter`).
    public func encoded() -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        JSONWriter.write(self, into: &out)
        return Data(out)
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value.rounded() == value && abs(value) < 1e15 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

/// Literals, for building bodies (the sandbox's answers, request bodies in tests).
extension JSONValue: ExpressibleByStringInterpolation, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var fields = [String: JSONValue]()
        for (key, value) in elements { fields[key] = value }
        self = .object(fields)
    }
}

extension JSONEncoder {
    /// Compact output with sorted keys: stable bytes for tests and fixtures.
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
