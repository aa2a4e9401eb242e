import Foundation

/// Why `JSONValue.parse` rejected a document: what went wrong and at which byte.
///
/// The message never quotes the input: response bodies can hold keys and other secrets.
public struct JSONParseError: Error, CustomStringConvertible, Equatable, Sendable {
    /// Offset in bytes from the start of the input (for the rare input sniffed as UTF-16/32: of its UTF-8).
    public let offset: Int
    /// What the parser expected or found wrong, e.g. "expected ',' or '}'".
    public let reason: String

    public var description: String { "invalid JSON: \(reason) at byte \(offset)" }
}

/// A byte-level recursive-descent JSON parser producing `JSONValue`.
///
/// It replaces `JSONDecoder().decode(JSONValue.self, from: JSONValue.escapingControlCharacters(data))` and accepts
/// the same documents with the same values (`JSONParserTests` checks this differentially). The behaviours of that
/// reference kept here:
/// - raw bytes below 0x20 inside strings are literal characters (the pre-pass escaped them);
/// - a trailing comma before `]` or `}` is allowed;
/// - for a duplicate key the first value (and key spelling) wins, and later values are only checked for
///   structure, the way JSONDecoder's scanner checks them (it never decodes them);
/// - numbers that overflow to infinity, or come out as zero despite a nonzero digit, are rejected (true zeros
///   such as `0e5` are accepted: JSONDecoder rejects some of them by mistake, see `isTrueZero`);
/// - a leading UTF-8 byte-order mark is skipped; UTF-16/32 input is sniffed from the first four bytes;
/// - nesting deeper than 512 arrays/objects is rejected; so are lone surrogate escapes and invalid UTF-8.
///
/// One known difference, where this parser accepts more: in a repeated key's value holding `\u` followed within
/// four bytes by `\"`, JSONDecoder's scanner and the pre-pass disagree on where that string ends; the pre-pass
/// then mishandles later control characters (escaping whitespace, or leaving them raw inside strings) and
/// JSONDecoder rejects the document. This parser takes them as their position says.
struct JSONParser {
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    /// Added to offsets in errors (a skipped byte-order mark).
    private let offsetBias: Int
    private var index = 0
    private var depth = 0
    /// Reused for strings with escapes.
    private var scratch: [UInt8] = []
    /// The elements of the arrays being parsed, innermost last: an array is allocated once, at its `]`.
    private var elements: [JSONValue] = []
    /// The members of the objects being parsed, innermost last: a dictionary is allocated once, at its `}`.
    private var members: [(String, JSONValue)] = []
    /// The escaping pre-pass, replayed lazily; nil when the bytes already went through it.
    private var prePass: PrePassState?

    private init(bytes: UnsafeBufferPointer<UInt8>, offsetBias: Int, replaysPrePass: Bool) {
        self.bytes = bytes
        self.offsetBias = offsetBias
        self.prePass = replaysPrePass ? PrePassState() : nil
    }

    /// Parses one JSON document.
    static func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        let result = data.withUnsafeBytes { raw -> Result<JSONValue, JSONParseError>? in
            let all = raw.assumingMemoryBound(to: UInt8.self)
            if mayBeUTF16OrUTF32(all) { return nil }
            let bomLength = hasUTF8ByteOrderMark(all) ? 3 : 0
            return parse(UnsafeBufferPointer(rebasing: all[bomLength...]), offsetBias: bomLength, replaysPrePass: true)
        }
        guard let result else { return try parseSniffingEncoding(data) }
        return try result.get()
    }

    private static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, offsetBias: Int, replaysPrePass: Bool
    ) -> Result<JSONValue, JSONParseError> {
        var parser = JSONParser(bytes: bytes, offsetBias: offsetBias, replaysPrePass: replaysPrePass)
        return Result { () throws(JSONParseError) -> JSONValue in try parser.parseDocument() }
    }

    private mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw error("expected the end of the input") }
        return value
    }

    // MARK: Values

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        switch try nextNonWhitespace(expecting: "a value") {
        case .quote: return .string(try parseString())
        case .openBrace: return try parseObject()
        case .openBracket: return try parseArray()
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case .minus, UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("expected a value")
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        if try nextNonWhitespace(expecting: "a value or ']'") == .closeBracket {
            index += 1
            return .array([])
        }
        let base = elements.count
        defer { elements.removeSubrange(base...) }
        while true {
            let element = try parseValue()
            elements.append(element)
            guard try afterElement(closing: .closeBracket) else { return .array(Array(elements[base...])) }
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        if try nextNonWhitespace(expecting: "'\"' or '}'") == .closeBrace {
            index += 1
            return .object([:])
        }
        let base = members.count
        defer { members.removeSubrange(base...) }
        var keys: Set<String>?
        while true {
            guard try nextNonWhitespace(expecting: "'\"'") == .quote else { throw error("expected '\"'") }
            let key = try parseString()
            guard try nextNonWhitespace(expecting: "':'") == .colon else { throw error("expected ':'") }
            index += 1
            if isRepeated(key, inMembersFrom: base, keys: &keys) {
                try skipValue()  // JSONDecoder keeps the first value and never decodes the others
            } else {
                let value = try parseValue()
                members.append((key, value))
            }
            guard try afterElement(closing: .closeBrace) else {
                return .object(Dictionary(uniqueKeysWithValues: members[base...]))
            }
        }
    }

    /// Whether the object whose members start at `base` already has `key`, compared as the dictionary will
    /// (Swift string equality: canonical equivalence). Small objects are searched, larger ones get a set.
    private func isRepeated(_ key: String, inMembersFrom base: Int, keys: inout Set<String>?) -> Bool {
        if keys == nil {
            guard members.count - base >= 16 else { return members[base...].contains { $0.0 == key } }
            keys = Set(members[base...].lazy.map(\.0))
        }
        return !keys!.insert(key).inserted
    }

    /// After an array element or object member: consumes `,` (and returns true) or the closing byte, allowing a
    /// trailing comma before it (JSONDecoder does).
    private mutating func afterElement(closing: UInt8) throws(JSONParseError) -> Bool {
        let expected = closing == .closeBracket ? "',' or ']'" : "',' or '}'"
        switch try nextNonWhitespace(expecting: expected) {
        case .comma:
            index += 1
            let next = try nextNonWhitespace(expecting: closing == .closeBracket ? "a value" : "'\"'")
            guard next == closing else { return true }
            index += 1
            return false
        case closing:
            index += 1
            return false
        default:
            throw error("expected \(expected)")
        }
    }

    private mutating func enterContainer() throws(JSONParseError) {
        guard depth < Self.maximumDepth else {
            throw error("nesting deeper than \(Self.maximumDepth) arrays and objects")
        }
        depth += 1
        index += 1
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw error("expected '\(literal)'") }
        let matches = literal.withUTF8Buffer { expected in
            for offset in 0..<count where bytes[index + offset] != expected[offset] { return false }
            return true
        }
        guard matches else { throw error("expected '\(literal)'") }
        index += count
    }

    // MARK: Numbers

    /// A number in strict JSON grammar, converted with `Double(String)`'s rounding.
    private mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = index
        var cursor = index
        let isNegative = bytes[cursor] == .minus
        if isNegative { cursor += 1 }
        guard cursor < bytes.count, bytes[cursor].isDigit else { throw error("expected a digit", at: cursor) }
        var integerValue: Int64 = 0
        if bytes[cursor] == UInt8(ascii: "0") {
            cursor += 1
        } else {
            while cursor < bytes.count, bytes[cursor].isDigit {
                // Wraps only past 18 digits, and then `integerDigits` sends the number to the slow path.
                integerValue = integerValue &* 10 &+ Int64(bytes[cursor] &- UInt8(ascii: "0"))
                cursor += 1
            }
        }
        let integerDigits = cursor - start - (isNegative ? 1 : 0)
        var isInteger = true
        if cursor < bytes.count, bytes[cursor] == .period {
            isInteger = false
            cursor += 1
            guard cursor < bytes.count, bytes[cursor].isDigit else { throw error("expected a digit", at: cursor) }
            while cursor < bytes.count, bytes[cursor].isDigit { cursor += 1 }
        }
        if cursor < bytes.count, bytes[cursor] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            cursor += 1
            if cursor < bytes.count, bytes[cursor] == .plus || bytes[cursor] == .minus { cursor += 1 }
            guard cursor < bytes.count, bytes[cursor].isDigit else { throw error("expected a digit", at: cursor) }
            while cursor < bytes.count, bytes[cursor].isDigit { cursor += 1 }
        }
        if cursor < bytes.count, bytes[cursor].isDigit || bytes[cursor].continuesNumber {
            throw error("malformed number", at: start)
        }
        index = cursor
        // Integers below 10^15 convert exactly, so this matches `Double(String)` bit for bit.
        if isInteger && integerDigits <= 15 {
            let magnitude = Double(integerValue)
            return isNegative ? -magnitude : magnitude
        }
        let number = UnsafeBufferPointer(rebasing: bytes[start..<cursor])
        guard let value = Double(String(decoding: number, as: UTF8.self)), value.isFinite,
            value != 0 || Self.isTrueZero(number)
        else { throw error("number out of range", at: start) }
        return value
    }

    /// Whether a number that came out as zero is zero (every mantissa digit is 0) rather than an underflow.
    /// JSONDecoder also rejects some true zeros (`0e5`, `0.00e5`: it reads the last bytes back to front and sees
    /// the exponent digit first); that is a bug, not a behaviour worth keeping, so they are accepted here.
    private static func isTrueZero(_ number: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in number {
            switch byte {
            case UInt8(ascii: "1")...UInt8(ascii: "9"): return false
            case UInt8(ascii: "e"), UInt8(ascii: "E"): return true
            default: continue
            }
        }
        return true
    }

    // MARK: Strings

    /// A string; `index` is at the opening quote.
    private mutating func parseString() throws(JSONParseError) -> String {
        let start = index + 1
        var cursor = start
        var allBits: UInt8 = 0
        while cursor < bytes.count {
            let byte = bytes[cursor]
            if byte == .quote {
                index = cursor + 1
                let utf8 = UnsafeBufferPointer(rebasing: bytes[start..<cursor])
                return try makeString(utf8, isASCII: allBits < 0x80, startingAt: start)
            }
            if byte == .backslash { return try parseEscapedString(from: start, firstEscape: cursor) }
            allBits |= byte
            cursor += 1
        }
        throw error("unterminated string", at: start - 1)
    }

    private mutating func parseEscapedString(from start: Int, firstEscape: Int) throws(JSONParseError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<firstEscape]))
        var cursor = firstEscape
        var runStart = cursor
        while cursor < bytes.count {
            let byte = bytes[cursor]
            if byte == .quote {
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<cursor]))
                index = cursor + 1
                return try scratch.withUnsafeBufferPointer { buffer throws(JSONParseError) in
                    try makeString(buffer, isASCII: false, startingAt: start)
                }
            }
            guard byte == .backslash else {
                cursor += 1
                continue
            }
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<cursor]))
            cursor = try appendEscape(at: cursor)
            runStart = cursor
        }
        throw error("unterminated string", at: start - 1)
    }

    /// Decodes the escape at `position` (a backslash) into `scratch`; returns the offset after it.
    private mutating func appendEscape(at position: Int) throws(JSONParseError) -> Int {
        guard position + 1 < bytes.count else { throw error("unterminated string", at: position) }
        let replacement: UInt8
        switch bytes[position + 1] {
        case .quote: replacement = .quote
        case .backslash: replacement = .backslash
        case UInt8(ascii: "/"): replacement = UInt8(ascii: "/")
        case UInt8(ascii: "b"): replacement = 0x08
        case UInt8(ascii: "f"): replacement = 0x0C
        case UInt8(ascii: "n"): replacement = 0x0A
        case UInt8(ascii: "r"): replacement = 0x0D
        case UInt8(ascii: "t"): replacement = 0x09
        case UInt8(ascii: "u"): return try appendUnicodeEscape(at: position)
        default: throw error("invalid escape sequence", at: position)
        }
        scratch.append(replacement)
        return position + 2
    }

    /// `\uXXXX`, or a surrogate pair `\uD8XX\uDCXX`; a lone surrogate is an error (as in JSONDecoder).
    private mutating func appendUnicodeEscape(at position: Int) throws(JSONParseError) -> Int {
        let unit = try hexUnit(at: position + 2)
        var next = position + 6
        let scalar: Unicode.Scalar?
        if UTF16.isLeadSurrogate(unit) {
            guard next + 1 < bytes.count, bytes[next] == .backslash, bytes[next + 1] == UInt8(ascii: "u") else {
                throw error("expected a low surrogate escape", at: next)
            }
            let trail = try hexUnit(at: next + 2)
            guard UTF16.isTrailSurrogate(trail) else { throw error("expected a low surrogate escape", at: next) }
            next += 6
            scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(trail) - 0xDC00))
        } else {
            scalar = Unicode.Scalar(unit)
        }
        guard let scalar else { throw error("unpaired surrogate escape", at: position) }
        scratch.append(contentsOf: UTF8.encode(scalar)!)
        return next
    }

    private func hexUnit(at position: Int) throws(JSONParseError) -> UInt16 {
        guard bytes.count - position >= 4 else { throw error("expected four hex digits", at: position) }
        var unit: UInt16 = 0
        for offset in 0..<4 {
            let byte = bytes[position + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
            default: throw error("expected four hex digits", at: position)
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    /// A string from bytes that must be valid UTF-8. `String(decoding:)` would replace invalid sequences with
    /// U+FFFD, so unchanged bytes prove the input valid; this is much cheaper than the generic (unspecialized)
    /// `String(validating:as:)`.
    private func makeString(
        _ utf8: UnsafeBufferPointer<UInt8>, isASCII: Bool, startingAt start: Int
    ) throws(JSONParseError) -> String {
        var string = String(decoding: utf8, as: UTF8.self)
        if isASCII { return string }
        let unchanged = string.withUTF8 { decoded in
            decoded.count == utf8.count && memcmp(decoded.baseAddress!, utf8.baseAddress!, utf8.count) == 0
        }
        guard unchanged else { throw error("invalid UTF-8 in the string", at: start - 1) }
        return string
    }

    // MARK: Whitespace and errors

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index].isWhitespace { index += 1 }
    }

    /// Skips whitespace and returns the next byte without consuming it.
    private mutating func nextNonWhitespace(expecting expected: String) throws(JSONParseError) -> UInt8 {
        skipWhitespace()
        guard index < bytes.count else { throw error("expected \(expected) but the input ended") }
        return bytes[index]
    }

    private func error(_ reason: String, at position: Int? = nil) -> JSONParseError {
        JSONParseError(offset: (position ?? index) + offsetBias, reason: reason)
    }
}

// MARK: - Values under a duplicate key

extension JSONParser {
    /// Checks a value the way JSONDecoder's scanner checks the values it never decodes (those under a repeated
    /// key): structure, literals and nesting depth only. Numbers are any run of digits, `.`, `+`, `-`, `e`, `E`
    /// after a `-` or digit; strings only need their closing quote and complete `\u` sequences.
    private mutating func skipValue() throws(JSONParseError) {
        switch try nextNonWhitespace(expecting: "a value") {
        case .quote: try skipString()
        case .openBrace: try skipObject()
        case .openBracket: try skipArray()
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        case .minus, UInt8(ascii: "0")...UInt8(ascii: "9"):
            index += 1
            while index < bytes.count, bytes[index].isDigit || bytes[index].continuesNumber { index += 1 }
        default: throw error("expected a value")
        }
    }

    private mutating func skipArray() throws(JSONParseError) {
        try enterContainer()
        defer { depth -= 1 }
        if try nextNonWhitespace(expecting: "a value or ']'") == .closeBracket {
            index += 1
            return
        }
        repeat { try skipValue() } while try afterElement(closing: .closeBracket)
    }

    private mutating func skipObject() throws(JSONParseError) {
        try enterContainer()
        defer { depth -= 1 }
        if try nextNonWhitespace(expecting: "'\"' or '}'") == .closeBrace {
            index += 1
            return
        }
        repeat {
            guard try nextNonWhitespace(expecting: "'\"'") == .quote else { throw error("expected '\"'") }
            try skipString()
            guard try nextNonWhitespace(expecting: "':'") == .colon else { throw error("expected ':'") }
            index += 1
            try skipValue()
        } while try afterElement(closing: .closeBrace)
    }

    private mutating func skipString() throws(JSONParseError) {
        let start = index
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case .quote:
                index += 1
                return
            case .backslash:
                guard index + 1 < bytes.count else { throw error("unterminated string", at: start) }
                index += 2
                if bytes[index - 1] == UInt8(ascii: "u") { try skipUnicodeEscapeDigits() }
            default:
                index += 1
            }
        }
        throw error("unterminated string", at: start)
    }

    /// The scanner takes the four bytes after `\u` unchecked, unless one is a quote. It saw the input after the
    /// escaping pre-pass, where a raw control byte had become the six bytes `\u00XX`: such a byte fills the rest
    /// of the four (and the leftover of its six bytes is plain text).
    private mutating func skipUnicodeEscapeDigits() throws(JSONParseError) {
        let start = index
        var needed = 4
        while needed > 0 {
            guard index < bytes.count else { throw error("expected four hex digits", at: start) }
            let byte = bytes[index]
            if byte == .quote { throw error("expected four hex digits", at: start) }
            index += 1
            needed = byte < 0x20 && prePassEscapes(at: index - 1) ? 0 : needed - 1
        }
    }

    /// Whether `escapingControlCharacters` rewrote the control byte at `position`; replays it up to there.
    private mutating func prePassEscapes(at position: Int) -> Bool {
        guard var state = prePass else { return false }
        while state.position < position {
            state.consume(bytes[state.position])
            state.position += 1
        }
        prePass = state
        return state.inString && !state.escaped
    }

    /// The state of `JSONValue.escapingControlCharacters` before the byte at `position`.
    private struct PrePassState {
        var position = 0
        var inString = false
        var escaped = false

        mutating func consume(_ byte: UInt8) {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == .backslash {
                    escaped = true
                } else if byte == .quote {
                    inString = false
                }
            } else if byte == .quote {
                inString = true
            }
        }
    }
}

// MARK: - Encodings

extension JSONParser {
    private static func hasUTF8ByteOrderMark(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
    }

    /// Only input with a zero byte among the first four, or a UTF-16 byte-order mark, can be sniffed as
    /// UTF-16/32 by JSONDecoder.
    private static func mayBeUTF16OrUTF32(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.prefix(4).contains(0) { return true }
        guard bytes.count >= 2 else { return false }
        return bytes[0] == 0xFE && bytes[1] == 0xFF || bytes[0] == 0xFF && bytes[1] == 0xFE
    }

    /// The rare path: what JSONDecoder did with the escaped bytes, sniffing the encoding from the first four
    /// bytes as it does (RFC 4627 section 3, extended to two-byte inputs) and transcoding to UTF-8.
    private static func parseSniffingEncoding(_ data: Data) throws(JSONParseError) -> JSONValue {
        let escaped = [UInt8](JSONValue.escapingControlCharacters(data))
        let (encoding, bomLength) = sniffEncoding(escaped)
        let utf8: [UInt8]
        if encoding == .utf8 {
            utf8 = Array(escaped[bomLength...])
        } else {
            guard let text = String(bytes: escaped[bomLength...], encoding: encoding) else {
                throw JSONParseError(offset: 0, reason: "the input is not valid \(encoding) text")
            }
            utf8 = Array(text.utf8)
        }
        let result = utf8.withUnsafeBufferPointer { buffer in
            parse(buffer, offsetBias: encoding == .utf8 ? bomLength : 0, replaysPrePass: false)
        }
        return try result.get()
    }

    private static func sniffEncoding(_ bytes: [UInt8]) -> (String.Encoding, bomLength: Int) {
        let byte0: UInt8? = bytes.count > 0 ? bytes[0] : nil
        let byte1: UInt8? = bytes.count > 1 ? bytes[1] : nil
        let byte2: UInt8? = bytes.count > 2 ? bytes[2] : nil
        let byte3: UInt8? = bytes.count > 3 ? bytes[3] : nil
        switch (byte0, byte1, byte2, byte3) {
        case (0, 0, 0xFE, 0xFF): return (.utf32BigEndian, 4)
        case (0xFE, 0xFF, 0, 0): return (.utf32LittleEndian, 4)  // sic: JSONDecoder's table
        case (0xFE, 0xFF, _, _): return (.utf16BigEndian, 2)
        case (0xFF, 0xFE, _, _): return (.utf16LittleEndian, 2)
        case (0xEF, 0xBB, 0xBF, _): return (.utf8, 3)
        case (0, 0, 0, .some(let last)) where last != 0: return (.utf32BigEndian, 0)
        case (0, .some(let first), 0, .some(let second)) where first != 0 && second != 0:
            return (.utf16BigEndian, 0)
        case (.some(let first), 0, 0, 0) where first != 0: return (.utf32LittleEndian, 0)
        case (.some(let first), 0, .some(let second), 0) where first != 0 && second != 0:
            return (.utf16LittleEndian, 0)
        case (0, .some(let first), nil, nil) where first != 0: return (.utf16BigEndian, 0)
        case (.some(let first), 0, nil, nil) where first != 0: return (.utf16LittleEndian, 0)
        default: return (.utf8, 0)
        }
    }
}

// MARK: - Bytes

extension UInt8 {
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let backslash = UInt8(ascii: "\\")
    fileprivate static let openBrace = UInt8(ascii: "{")
    fileprivate static let closeBrace = UInt8(ascii: "}")
    fileprivate static let openBracket = UInt8(ascii: "[")
    fileprivate static let closeBracket = UInt8(ascii: "]")
    fileprivate static let comma = UInt8(ascii: ",")
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let minus = UInt8(ascii: "-")
    fileprivate static let plus = UInt8(ascii: "+")
    fileprivate static let period = UInt8(ascii: ".")

    fileprivate var isDigit: Bool { self &- UInt8(ascii: "0") < 10 }

    /// JSON whitespace: space, tab, line feed, carriage return.
    fileprivate var isWhitespace: Bool {
        self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09
    }

    /// Bytes JSONDecoder's scanner takes as part of a number besides digits.
    fileprivate var continuesNumber: Bool {
        self == .period || self == .plus || self == .minus || self | 0x20 == UInt8(ascii: "e")
    }
}
