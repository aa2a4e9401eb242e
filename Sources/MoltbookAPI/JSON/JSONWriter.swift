import Foundation

/// Compact JSON bytes with object keys sorted (Swift's `String` order): stable output for request
/// bodies, journal payloads and the sandbox's responses, without `JSONEncoder`'s per-value
/// boxing (a journal payload was ~20 µs through `JSONEncoder`).
///
/// Strings escape `"`, `\` and control characters (`\n`, `\r`, `\t`, else `\u00XX`); `/` and
/// non-ASCII are written as they are, as `JSONEncoder` does with `.withoutEscapingSlashes`.
public enum JSONWriter {
    /// Appends a string literal.
    public static func writeString(_ value: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += #"\""#.utf8
            case UInt8(ascii: "\\"): out += #"\\"#.utf8
            case UInt8(ascii: "\n"): out += #"\n"#.utf8
            case UInt8(ascii: "\r"): out += #"\r"#.utf8
            case UInt8(ascii: "\t"): out += #"\t"#.utf8
            case ..<0x20:
                out += [
                    UInt8(ascii: "\\"), UInt8(ascii: "u"), 0x30, 0x30, hexDigits[Int(byte >> 4)],
                    hexDigits[Int(byte & 0xF)],
                ]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends a number: integral values below 10^15 without a fraction, others as Swift prints
    /// them (shortest round-trip form), non-finite ones as `null`.
    public static func writeNumber(_ value: Double, into out: inout [UInt8]) {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            out += String(Int64(value)).utf8
        } else if value.isFinite {
            out += String(value).utf8
        } else {
            out += "null".utf8
        }
    }

    /// Appends `value`.
    public static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out += "null".utf8
        case .bool(let flag): out += (flag ? "true" : "false").utf8
        case .number(let number): writeNumber(number, into: &out)
        case .string(let text): writeString(text, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(fields[key]!, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
