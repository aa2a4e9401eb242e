import Foundation
import MoltbookAPI

/// A JSON value with a deterministic serialisation (object keys sorted, no insignificant whitespace).
///
/// Every response body the sandbox writes goes through `serialized()`, so the same state gives
/// byte-identical bodies.
public enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    /// A string, or `null` when `value` is nil.
    static func optional(_ value: String?) -> JSON {
        value.map(JSON.string) ?? .null
    }

    /// The UTF-8 bytes of the compact, key-sorted serialisation.
    public func serialized() -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        write(into: &out)
        return Data(out)
    }

    private func write(into out: inout [UInt8]) {
        switch self {
        case .null: out += "null".utf8
        case .bool(let value): out += (value ? "true" : "false").utf8
        case .int(let value): out += String(value).utf8
        case .double(let value): JSONWriter.writeNumber(value, into: &out)
        case .string(let value): JSONWriter.writeString(value, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (index, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(field.key, into: &out)
                out.append(UInt8(ascii: ":"))
                field.value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Parses a JSON document; nil when `data` is not valid JSON. Numbers that are whole (and
    /// below 10^15) become `.int`, as `JSONDecoder` gave them.
    public static func parse(_ data: Data) -> JSON? {
        (try? JSONValue.parse(data)).map(JSON.init(_:))
    }

    /// `value` as the sandbox's JSON.
    public init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .number(let number):
            self = number == number.rounded() && abs(number) < 1e15 ? .int(Int(number)) : .double(number)
        case .string(let text): self = .string(text)
        case .array(let items): self = .array(items.map(JSON.init(_:)))
        case .object(let fields): self = .object(fields.mapValues(JSON.init(_:)))
        }
    }

    /// The same document as the client's `JSONValue`: what parsing `serialized()` gives
    /// (integers and doubles become numbers; a non-finite double, which serialises as null, is null).
    public var value: JSONValue {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .int(let value): .number(Double(value))
        case .double(let value): value.isFinite ? .number(value) : .null
        case .string(let value): .string(value)
        case .array(let items): .array(items.map(\.value))
        case .object(let fields): .object(fields.mapValues(\.value))
        }
    }

    // MARK: Accessors

    public subscript(key: String) -> JSON? {
        if case .object(let fields) = self { return fields[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var intValue: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value == value.rounded() && abs(value) < 1e15: return Int(value)
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var objectValue: [String: JSON]? {
        if case .object(let fields) = self { return fields }
        return nil
    }

    public var arrayValue: [JSON]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// `self` with the fields of `patch` laid over it, recursively for nested objects.
    func merging(_ patch: JSON) -> JSON {
        guard case .object(var base) = self, case .object(let overlay) = patch else { return patch }
        for (key, value) in overlay {
            base[key] = base[key].map { $0.merging(value) } ?? value
        }
        return .object(base)
    }
}

extension JSON: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSON: ExpressibleByStringInterpolation, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) {
        var fields = [String: JSON]()
        for (key, value) in elements { fields[key] = value }
        self = .object(fields)
    }
}
