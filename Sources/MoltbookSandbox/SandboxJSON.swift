import Foundation
import MoltbookAPI

/// The sandbox's JSON is the client's `JSONValue`: one value type for both sides of the API.
///
/// Bodies are written by `JSONWriter` (object keys sorted, no insignificant whitespace), so the
/// same state gives byte-identical bodies; the in-process transport hands the value itself to
/// the client (`HTTPResponse.parsedBody`) instead of bytes it would parse back.
public typealias JSON = JSONValue

extension JSONValue {
    /// An integer (`JSONValue` keeps every number as a `Double`; counts and ids stay exact).
    public static func int(_ value: Int) -> JSONValue { .number(Double(value)) }

    public static func double(_ value: Double) -> JSONValue { .number(value) }

    /// A string, or `null` when `value` is nil.
    static func optional(_ value: String?) -> JSONValue {
        value.map(JSONValue.string) ?? .null
    }

    /// The UTF-8 bytes of the compact, key-sorted serialisation.
    public func serialized() -> Data { encoded() }

    /// Parses a JSON document; nil when `data` is not valid JSON.
    public static func parseOrNil(_ data: Data) -> JSONValue? {
        try? JSONValue.parse(data)
    }

    // MARK: Accessors (strict: no conversions between types, unlike `string` and `int`)

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// A whole number below 10^15.
    public var intValue: Int? {
        if case .number(let value) = self, value == value.rounded(), abs(value) < 1e15 { return Int(value) }
        return nil
    }

    public var doubleValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var objectValue: [String: JSONValue]? { object }

    public var arrayValue: [JSONValue]? { array }

    /// `self` with the fields of `patch` laid over it, recursively for nested objects.
    func merging(_ patch: JSONValue) -> JSONValue {
        guard case .object(var base) = self, case .object(let overlay) = patch else { return patch }
        for (key, value) in overlay {
            base[key] = base[key].map { $0.merging(value) } ?? value
        }
        return .object(base)
    }
}
