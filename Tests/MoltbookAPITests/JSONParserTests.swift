import Foundation
import MoltbookSandbox
import MoltipassTesting
import Testing

@testable import MoltbookAPI

/// `JSONValue.parse` (the hand-written `JSONParser`) against what it replaced: `JSONDecoder` after the
/// control-character pre-pass. Values are compared strictly (number bits, string scalars, key scalars).
@Suite("JSON parser")
struct JSONParserTests {
    /// Every API fixture parses to exactly what the reference decoder produced.
    @Test func fixturesMatchTheReference() throws {
        let names = try Fixtures.names(in: "api", withExtension: "json")
        #expect(names.count >= 40)
        for name in names {
            let data = try Fixtures.data("api/\(name)")
            let expected = try referenceParse(data)
            #expect(strictlyEqual(try JSONValue.parse(data), expected), "\(name)")
        }
    }

    /// Hand-written edge cases parse to the reference's values.
    @Test(arguments: trickyDocuments)
    func trickyDocumentMatchesTheReference(document: JSONTestDocument) throws {
        let expected = try referenceParse(Data(document.bytes))
        #expect(strictlyEqual(try JSONValue.parse(Data(document.bytes)), expected))
    }

    /// The decisions the reference made, spelled out.
    @Test func referenceQuirks() throws {
        // Duplicate keys: the first wins; later values are only checked for structure, never decoded.
        #expect(try parse(#"{"a":1,"b":0,"a":2,"a":3}"#) == .object(["a": .number(1), "b": .number(0)]))
        #expect(try parse(#"{"a":"x","a":01,"a":"\ud800","a":1e999}"#) == .object(["a": .string("x")]))
        // Keys are compared as Swift strings (canonical equivalence); the first spelling is kept.
        let normalized = try #require(try parse("{\"e\u{301}\":1,\"\u{E9}\":2}").object)
        #expect(normalized.count == 1)
        #expect(normalized.first?.key.unicodeScalars.count == 2)
        #expect(normalized.first?.value == .number(1))
        // Trailing commas are accepted.
        #expect(try parse("[1,]") == .array([.number(1)]))
        #expect(try parse(#"{"a":1 , }"#) == .object(["a": .number(1)]))
        // A leading UTF-8 byte-order mark is skipped.
        #expect(try JSONValue.parse(Data([0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8))) == .object(["a": .number(1)]))
        // Surrogate pairs decode; raw control characters in strings are literal.
        #expect(try parse(#""\ud83d\ude00""#) == .string("\u{1F600}"))
        #expect(try parse("\"a\u{01}b\tc\nd\u{00}\"") == .string("a\u{01}b\tc\nd\u{00}"))
        // -0 keeps its sign; big integers round like Double(String).
        #expect(try parse("-0") == .number(-0.0))
        guard case .number(let negativeZero) = try parse("-0") else { return }
        #expect(negativeZero.sign == .minus)
        #expect(try parse("12345678901234567890") == .number(Double("12345678901234567890")!))
        // Zero with an exponent is rejected when JSONDecoder's underflow check sees an exponent digit first.
        #expect(try parse("[0e10,0.0e5,0e0,-0e5]") == .array([.number(0), .number(0), .number(0), .number(-0.0)]))
        // JSONDecoder rejects these true zeros by mistake (see `JSONParser.isTrueZero`); they are zeros.
        #expect(throws: (any Error).self) { try referenceParse(Data("0e5".utf8)) }
        #expect(try parse("0e5") == .number(0))
        #expect(try parse("0.00e5") == .number(0))
        #expect(strictlyEqual(try parse("[-0.0e1]"), .array([.number(-0.0)])))
        #expect(throws: JSONParseError.self) { try parse("1e-400") }
        // UTF-16 and UTF-32 are sniffed from the first four bytes.
        #expect(try JSONValue.parse(Data(utf16LE("[1,2]", byteOrderMark: true))) == .array([.number(1), .number(2)]))
        #expect(try JSONValue.parse(Data([0x31, 0x00])) == .number(1))
    }

    /// Random documents (nesting, escapes, unicode, raw control characters, every number shape, duplicate keys,
    /// trailing commas) parse exactly as the reference parses them, or both reject them.
    @Test func generatedDocumentsMatchTheReference() throws {
        var generator = DocumentGenerator(seed: 0x5EED_0F_1502)
        var accepted = 0
        for round in 0..<2_000 {
            let document = generator.document()
            let data = Data(document)
            let expected = try? referenceAcceptingZeros(data)
            let parsed = try? JSONValue.parse(data)
            if let expected {
                accepted += 1
                #expect(parsed.map { strictlyEqual($0, expected) } == true, "round \(round)")
            } else {
                #expect(parsed == nil, "round \(round): the reference rejects it")
            }
        }
        #expect(accepted > 1_500)
    }

    /// Random byte edits of generated documents: whatever the reference accepts parses to the same value, and
    /// whatever it rejects is rejected too.
    @Test func mutatedDocumentsMatchTheReference() throws {
        var generator = DocumentGenerator(seed: 0xBAD_B17E5)
        var rejected = 0
        for round in 0..<2_000 {
            let data = Data(generator.mutated(generator.document()))
            let expected = try? referenceAcceptingZeros(data)
            let parsed = try? JSONValue.parse(data)
            if let expected {
                #expect(parsed.map { strictlyEqual($0, expected) } == true, "round \(round)")
            } else {
                rejected += 1
                #expect(parsed == nil, "round \(round): the reference rejects it")
            }
        }
        #expect(rejected > 500)
    }

    /// A second, independent reference (issue 34, deliverable 9): Foundation's `JSONSerialization`,
    /// over generated and mutated documents. Where it accepts a document, the parser gives the same
    /// values (numbers by value, strings and keys by scalars) or refuses it, except where the
    /// `JSONDecoder` reference above gives what the parser gives: the three points where the two
    /// Foundation parsers disagree with each other — a repeated key (`JSONSerialization` keeps the
    /// last, `JSONDecoder` and the parser the first), U+FEFF inside a string (`JSONSerialization`
    /// drops it, the others keep it: it is content), a number that underflows (`JSONSerialization`
    /// reads 0, the others refuse). Where it refuses, the parser refuses too, except its documented
    /// leniencies: raw control characters inside strings (Moltbook served them; Foundation accepts
    /// the document once they are escaped) and what the `JSONDecoder` reference accepts.
    @Test func generatedAndMutatedDocumentsMatchJSONSerialization() throws {
        var generator = DocumentGenerator(seed: 0xF0_0D_5E_71A1)
        var (agreed, refusedByBoth, referenceSide, lenient) = (0, 0, 0, 0)
        for round in 0..<4_000 {
            let document = round % 2 == 0 ? generator.document() : generator.mutated(generator.document())
            let data = Data(document)
            let parsed = try? JSONValue.parse(data)
            let decoder = try? referenceAcceptingZeros(data)
            if let foundation = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) {
                if let parsed, sameValue(parsed, foundationValue(foundation)) {
                    agreed += 1
                } else {
                    #expect(
                        parsed.map { ours in decoder.map { strictlyEqual(ours, $0) } ?? false } ?? (decoder == nil),
                        "round \(round): Foundation accepts it, the parser differs from both references")
                    referenceSide += 1
                }
            } else if let parsed {
                let escaped = JSONValue.escapingControlCharacters(data)
                let viaEscaped = try? JSONSerialization.jsonObject(with: escaped, options: [.fragmentsAllowed])
                #expect(
                    viaEscaped.map { sameValue(parsed, foundationValue($0)) } == true
                        || decoder.map { strictlyEqual(parsed, $0) } == true,
                    "round \(round): accepted beyond the documented leniencies")
                lenient += 1
            } else {
                refusedByBoth += 1
            }
        }
        #expect(
            agreed > 1_000 && refusedByBoth > 300 && referenceSide < agreed / 2,
            "\(agreed) agreed, \(refusedByBoth) refused by both, \(referenceSide) as JSONDecoder, \(lenient) lenient")
    }

    /// Invalid documents throw `JSONParseError`, and the reference rejected them too.
    @Test(arguments: invalidDocuments)
    func invalidDocumentIsRejected(document: JSONTestDocument) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Data(document.bytes)) }
        #expect(throws: (any Error).self, "the reference accepts it") { try referenceParse(Data(document.bytes)) }
    }

    /// Hostile nesting is refused at 512 levels without exhausting the stack.
    @Test func nestingIsCappedAt512() throws {
        #expect(throws: Never.self) {
            try parse(String(repeating: "[", count: 512) + String(repeating: "]", count: 512))
        }
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(throws: JSONParseError.self) { try parse(tooDeep) }
        let hostile = String(repeating: "{\"a\":[", count: 100_000)
        let error = try #require(throws: JSONParseError.self) { try parse(hostile) }
        #expect(error.offset == 6 * 256)  // the 513th container: "{" of the 257th repetition
        #expect(error.description.contains("512"))
    }

    /// Errors name the byte offset and never echo the input.
    @Test func errorsGiveTheOffsetAndNoContent() throws {
        let secret = "moltbook_sk_SECRETvalue1234567890"
        let cases: [(document: String, offset: Int)] = [
            (#"{"api_key": "\#(secret)" "next": 1}"#, 48),
            (#"{"api_key": "\#(secret)", "n": 01}"#, 54),
            (#"{"api_key": "\#(secret)", "s": "\x"}"#, 55),
            (#"{"api_key": "\#(secret)", "s": "\#(secret)"#, 54),
            (#"["\#(secret)"] \#(secret)"#, 38),
        ]
        for (document, offset) in cases {
            let error = try #require(throws: JSONParseError.self) { try parse(document) }
            #expect(error.offset == offset, "\(error)")
            #expect(error.description.contains("at byte \(offset)"))
            #expect(!error.description.contains("SECRET"))
            #expect(!"\(error)".contains("SECRET") && !String(reflecting: error).contains("SECRET"))
        }
        let invalidUTF8 = Array(#"{"api_key": "\#(secret)", "s": ""#.utf8) + [0xFF, 0x22, 0x7D]
        let error = try #require(throws: JSONParseError.self) { try JSONValue.parse(Data(invalidUTF8)) }
        #expect(error.offset == 54)
        #expect(error.description == "invalid JSON: invalid UTF-8 in the string at byte 54")
    }

    private func parse(_ text: String) throws -> JSONValue {
        try JSONValue.parse(Data(text.utf8))
    }
}

// MARK: - The reference and strict comparison

/// What `JSONValue.parse` did before `JSONParser`.
private func referenceParse(_ data: Data) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: JSONValue.escapingControlCharacters(data))
}

/// The reference, except for its one bug the parser does not copy: when it rejects a document holding a zero
/// with an exponent (`0e5`, `-0.00E+3`), those numbers are written as plain zeros and it is asked again.
private func referenceAcceptingZeros(_ data: Data) throws -> JSONValue {
    do {
        return try referenceParse(data)
    } catch {
        let text = String(decoding: data, as: UTF8.self)
        guard Data(text.utf8) == data else { throw error }
        let pattern = try NSRegularExpression(pattern: #"(?<![0-9A-Za-z.+\-])(-?)0(?:\.0+)?[eE][+-]?[0-9]+(?![0-9])"#)
        let range = NSRange(text.startIndex..., in: text)
        let zeros = pattern.stringByReplacingMatches(in: text, range: range, withTemplate: "$10")
        guard zeros != text else { throw error }
        return try referenceParse(Data(zeros.utf8))
    }
}

/// A `JSONSerialization` value as a `JSONValue` (booleans are told from numbers by their Objective-C type).
private func foundationValue(_ any: Any) -> JSONValue {
    switch any {
    case is NSNull: return .null
    case let text as String: return .string(text)
    case let array as [Any]: return .array(array.map(foundationValue))
    case let object as [String: Any]: return .object(object.mapValues(foundationValue))
    case let number as NSNumber:
        if String(cString: number.objCType) == "c" || type(of: any) == Bool.self { return .bool(number.boolValue) }
        return .number(number.doubleValue)
    case let flag as Bool: return .bool(flag)
    default: return .string("\(any)")
    }
}

/// Equal values: numbers by value (Foundation keeps integers beyond a double's precision), strings and keys by
/// their scalars.
private func sameValue(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): return true
    case (.bool(let left), .bool(let right)): return left == right
    case (.number(let left), .number(let right)): return left == right || abs(left - right) <= abs(left) * 1e-15
    case (.string(let left), .string(let right)): return Array(left.unicodeScalars) == Array(right.unicodeScalars)
    case (.array(let left), .array(let right)):
        return left.count == right.count && zip(left, right).allSatisfy { sameValue($0, $1) }
    case (.object(let left), .object(let right)):
        let leftKeys = Set(left.keys.map { Array($0.unicodeScalars).map(\.value) })
        let rightKeys = Set(right.keys.map { Array($0.unicodeScalars).map(\.value) })
        return leftKeys == rightKeys
            && left.allSatisfy { key, value in
                right.first { Array($0.key.unicodeScalars) == Array(key.unicodeScalars) }.map {
                    sameValue(value, $0.value)
                }
                    ?? false
            }
    default: return false
    }
}

/// `==` compares strings by canonical equivalence and numbers by value (0 == -0); this compares scalars and bits.
private func strictlyEqual(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): return true
    case (.bool(let left), .bool(let right)): return left == right
    case (.number(let left), .number(let right)): return left.bitPattern == right.bitPattern
    case (.string(let left), .string(let right)): return left.utf8.elementsEqual(right.utf8)
    case (.array(let left), .array(let right)):
        return left.count == right.count && zip(left, right).allSatisfy { strictlyEqual($0, $1) }
    case (.object(let left), .object(let right)):
        guard left.count == right.count else { return false }
        return left.allSatisfy { key, value in
            guard let index = right.index(forKey: key) else { return false }
            return right[index].key.utf8.elementsEqual(key.utf8) && strictlyEqual(value, right[index].value)
        }
    default: return false
    }
}

private func utf16LE(_ text: String, byteOrderMark: Bool) -> [UInt8] {
    (byteOrderMark ? [0xFF, 0xFE] : []) + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
}

private func utf16BE(_ text: String) -> [UInt8] {
    text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
}

private func utf32LE(_ text: String) -> [UInt8] {
    text.unicodeScalars.flatMap { scalar in (0..<4).map { UInt8(truncatingIfNeeded: scalar.value >> (8 * $0)) } }
}

// MARK: - Documents

/// A test argument shown as (the start of) its text rather than as a list of byte values.
struct JSONTestDocument: Sendable, CustomTestStringConvertible {
    let bytes: [UInt8]

    var testDescription: String {
        let text = String(decoding: bytes.prefix(48), as: UTF8.self).debugDescription
        return bytes.count > 48 ? "\(text)… (\(bytes.count) bytes)" : text
    }
}

private let trickyDocuments: [JSONTestDocument] = {
    let texts = [
        #""\"\\\/\b\f\n\r\t""#, #""\u00e9\u00C9\u4e2d\uFFFF\ufeff\u0000""#, #""\ud83d\ude00\uD83D\uDE00x""#,
        #""\udbff\udfff""#, "\"é中😀 e\u{301}\"", "\"\u{FEFF}\"", "\"\u{7F}\u{80}\"",
        "1e5", "1E+5", "1e-5", "-1.5E-3", "0.1", "0e0", "-0", "-0.0", "-0e-5", "0e999999", "0.0000e-99999",
        "12345678901234567890", "-9223372036854775809", "999999999999999", "-999999999999999", "1000000000000000",
        "9007199254740993", "1e308", "-1e308", "1.7976931348623157e308", "4.9406564584124654e-324", "2.5e-324",
        "1e0000000000000000000001", "0." + String(repeating: "0", count: 300) + "1e300", "0e10", "0.0e5", "0e0",
        "-0e5", "[0e10,0E12,-0.0e0,0.000e-7]",
        "1" + String(repeating: "0", count: 300), "3." + String(repeating: "14159", count: 60),
        "0.30000000000000004", "123.456e-7", "[]", "{}", "[{}]", #"{"":{}}"#, #"{"a":[]}"#, "[[[]]]",
        "true", "false", "null", #"[true,false,null]"#, " \t\r\n[ 1 , { \"a\" : [ ] } , \"x\" ] \n\t ",
        "\"tab\there\"", "\"nul\u{00}bell\u{07}esc\u{1B}us\u{1F}\"",
        "{\"k\u{01}\":\"v\u{02}\",\"t\":\"a\tb\nc\rd\"}", #"{"a":1,"b":{"c":[1,2,{"d":"e"}]}}"#,
        #"{"a":1,"a":2}"#, #"{"a":{"x":1},"a":{"y":2}}"#, #"{"a":1,"\u0061":2}"#,
        #"{"a":1,"a":01}"#, #"{"a":1,"a":1-2+3}"#, #"{"a":1,"a":"\x"}"#, #"{"a":1,"a":{"\ud800":[-,1.e]}}"#,
        "{\"a\":1,\"a\":\"\\u\u{01}\"}", "{\"a\":1,\"a\":\"\\uab\u{01}\"}", "{\"a\":1,\"a\":\"\\\u{01}\"}",
        "[1,]", "[1 , ]", #"{"a":1,}"#, "[[1,],[2,],]",
        String(repeating: "[", count: 512) + String(repeating: "]", count: 512),
        String(repeating: "{\"a\":", count: 511) + "{}" + String(repeating: "}", count: 511),
        String(repeating: "[{\"k\":", count: 256) + "\"deep\"" + String(repeating: "}]", count: 256),
        "{\"a\":1,\"a\":" + String(repeating: "[", count: 511) + String(repeating: "]", count: 511) + "}",
        #"{"feed":[{"id":"7a9f","score":10,"ratio":0.83,"tags":["a","b"],"author":{"name":"R"}},null]}"#,
        // Past 16 members duplicates are found through a set; the first value and spelling still win.
        "{" + (0..<40).map { "\"k\($0 % 23)\":\($0)," }.joined() + "\"e\u{301}\":1,\"\u{E9}\":[01],\"k3\":\"\\x\"}",
    ]
    let bytes: [[UInt8]] = [
        [0xEF, 0xBB, 0xBF] + Array(#"{"a":1}"#.utf8), [0xEF, 0xBB, 0xBF, 0x31],
        [0x22, 0x00, 0x22],
        utf16LE("[1,-2.5e3,true,null,{}]", byteOrderMark: false), utf16LE("[1, 2]", byteOrderMark: true),
        utf16BE("[12,false]"), [0xFE, 0xFF] + utf16BE("[1,2]"), [0x00, 0x31], [0x31, 0x00], utf32LE("[1]"),
        [0x00, 0x00, 0x00, 0x31], [0x00, 0x00, 0xFE, 0xFF, 0x00, 0x00, 0x00, 0x31],
        [0xFE, 0xFF, 0x00, 0x00, 0x31, 0x00, 0x00, 0x00],
    ]
    return (texts.map { Array($0.utf8) } + bytes).map(JSONTestDocument.init)
}()

private let invalidDocuments: [JSONTestDocument] = {
    let deep = { (count: Int) in String(repeating: "[", count: count) + String(repeating: "]", count: count) }
    let texts = [
        "", " ", "\n\t", "{", "[", #"{"a":"#, #"{"a":1"#, "[1,2", #"["abc"#, #""abc"#, #""abc\"#, #""\"#,
        "{} x", "[] []", "1 2", "nullx", "truex", "01", "-01", "00", "1.", ".5", "+1", "-", "1e", "1e+", "1.e5",
        "1.5.3", "1e5.3", "1e5e5", "0x10", "1_000", "tru", "fals", "nul", "True", "NULL", "NaN", "-NaN", "Infinity",
        "-Infinity", "1e999", "-1e999", "1e309", "1e-400", "-1e-400", "2e-324",
        "0." + String(repeating: "0", count: 400) + "1", String(repeating: "9", count: 400),
        #""\x""#, #""\u12G4""#, #""\u12""#, #""\u+0e9""#, #""\U0041""#, #""\'""#, #""\ud800""#, #""\udc00""#,
        #""\ud800x""#, #""\ud800\u0041""#, #""\ud800\ud800""#, #""\ud800\n""#, #""\udfff\ud800""#,
        ",", "[,]", "[1,,2]", "[1,,]", "{,}", #"{"a":1,,"b":2}"#, "[1 2]", #"{"a" 1}"#, #"{"a":1 "b":2}"#,
        #"{"a"}"#, #"{"a":}"#, "{1:2}", "{a:1}", "{'a':1}", "'a'", "[1]]", "{}}", "]", "}",
        "// c\n1", "1 /* c */", "[1,\u{01}2]", "\u{0C}1", "\u{A0}1", "\u{3000}1", "\"\\\u{01}\"", "[\"\\u00\u{01}1\"]",
        deep(513), deep(600), String(repeating: "{\"a\":", count: 512) + "{}" + String(repeating: "}", count: 512),
    ]
    let bytes: [[UInt8]] = [
        [0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22],
        [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0x80, 0x22], [0x22, 0xF8, 0x88, 0x80, 0x80, 0x80, 0x22],
        [0x5B, 0x31, 0x5D, 0x20, 0xFF], [0xFF], Array(#"{"k\#u{1}":"#.utf8) + [0xC3, 0x28, 0x22, 0x7D],
        Array(#"{"a":"ok","b":""#.utf8) + [0xE0, 0x80, 0x80] + Array(#""}"#.utf8),
        [0xEF, 0xBB, 0xBF], [0x20, 0xEF, 0xBB, 0xBF, 0x31], [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF, 0x31],
        [0x00], [0x00, 0x31, 0x20, 0x20], [0x31, 0x00, 0x32], [0x22, 0x00],
        utf16LE(#"{"a":1}"#, byteOrderMark: false), utf16LE(#""ab""#, byteOrderMark: true), utf16BE(#""""#),
        [0xFF, 0xFE, 0x00, 0x00, 0x31, 0x00, 0x00, 0x00], utf16LE("[1]", byteOrderMark: false) + [0x00, 0xD8],
    ]
    return (texts.map { Array($0.utf8) } + bytes).map(JSONTestDocument.init)
}()

// MARK: - Random documents

extension SeededRandom {
    /// True `percent` times in a hundred (one draw).
    mutating func percent(_ percent: Int) -> Bool { index(100) < percent }
}

/// Builds JSON text by hand: nested values, strings with every escape and raw control characters, numbers of
/// every shape (some out of range), duplicate keys and trailing commas, and the odd UTF-16 document.
struct DocumentGenerator {
    var random: SeededRandom

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    mutating func document() -> [UInt8] {
        var output: [UInt8] = []
        if random.percent(3) {
            // String-free, so the pre-pass leaves it alone, then transcoded: the reference sniffs the encoding.
            value(into: &output, depth: 2, allowStrings: false)
            let text = String(decoding: output, as: UTF8.self)
            switch random.index(4) {
            case 0: return utf16LE(text, byteOrderMark: random.percent(50))
            case 1: return utf16BE(text)
            case 2: return [0xFE, 0xFF] + utf16BE(text)
            default: return utf32LE(text)
            }
        }
        if random.percent(3) { output += [0xEF, 0xBB, 0xBF] }
        whitespace(into: &output)
        value(into: &output, depth: random.index(6), allowStrings: true)
        whitespace(into: &output)
        return output
    }

    /// Deletes, inserts, duplicates or replaces a few bytes.
    mutating func mutated(_ document: [UInt8]) -> [UInt8] {
        var bytes = document
        let interesting = Array("{}[],:\"\\ -+.eE0159tfnu\u{01}\t".utf8) + [0x00, 0x80, 0xC3, 0xED, 0xFF]
        for _ in 0...random.index(3) where !bytes.isEmpty {
            let position = random.index(bytes.count)
            switch random.index(4) {
            case 0: bytes.remove(at: position)
            case 1: bytes.insert(interesting[random.index(interesting.count)], at: position)
            case 2: bytes.insert(bytes[position], at: position)
            default: bytes[position] = interesting[random.index(interesting.count)]
            }
        }
        return bytes
    }

    private mutating func value(into output: inout [UInt8], depth: Int, allowStrings: Bool) {
        let kind = depth == 0 ? random.index(5) : random.index(8)
        switch kind {
        case 0: output += Array(["null", "true", "false"][random.index(3)].utf8)
        case 1, 2: number(into: &output)
        case 3, 4:
            if allowStrings { string(into: &output) } else { number(into: &output) }
        case 5, 6: array(into: &output, depth: depth, allowStrings: allowStrings)
        default:
            if allowStrings { object(into: &output, depth: depth) } else { output += Array("{}".utf8) }
        }
    }

    private mutating func array(into output: inout [UInt8], depth: Int, allowStrings: Bool) {
        output.append(UInt8(ascii: "["))
        let count = random.percent(15) ? 0 : random.index(7)
        for index in 0..<count {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            whitespace(into: &output)
            value(into: &output, depth: depth - 1, allowStrings: allowStrings)
            whitespace(into: &output)
        }
        if count > 0 && random.percent(5) { output.append(UInt8(ascii: ",")) }
        output.append(UInt8(ascii: "]"))
    }

    private mutating func object(into output: inout [UInt8], depth: Int) {
        output.append(UInt8(ascii: "{"))
        let count = random.percent(15) ? 0 : random.index(7)
        var keys: [[UInt8]] = []
        for index in 0..<count {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            whitespace(into: &output)
            if !keys.isEmpty && random.percent(10) {
                output += keys[random.index(keys.count)]
            } else {
                var key: [UInt8] = []
                if random.percent(50) {
                    key = Array("\"\(["id", "name", "e\u{301}", "\u{E9}", "a", "score"][random.index(6)])\"".utf8)
                } else {
                    string(into: &key)
                }
                keys.append(key)
                output += key
            }
            whitespace(into: &output)
            output.append(UInt8(ascii: ":"))
            whitespace(into: &output)
            value(into: &output, depth: depth - 1, allowStrings: true)
            whitespace(into: &output)
        }
        if count > 0 && random.percent(5) { output.append(UInt8(ascii: ",")) }
        output.append(UInt8(ascii: "}"))
    }

    private mutating func string(into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        let pieces = ["a", "Z", " ", "/", "é", "中", "😀", "e\u{301}", "\u{7F}", "\u{FEFF}", "'"]
        let escapes = [#"\""#, #"\\"#, #"\/"#, #"\b"#, #"\f"#, #"\n"#, #"\r"#, #"\t"#]
        for _ in 0..<random.index(random.percent(10) ? 40 : 12) {
            switch random.index(10) {
            case 0...4: output += Array(pieces[random.index(pieces.count)].utf8)
            case 5: output += Array(escapes[random.index(escapes.count)].utf8)
            case 6:
                // A BMP scalar that is not a surrogate, in either case of hex digits.
                var unit = UInt16(truncatingIfNeeded: random.next())
                if UTF16.isLeadSurrogate(unit) || UTF16.isTrailSurrogate(unit) { unit &-= 0x2000 }
                let hex = String(unit, radix: 16, uppercase: random.percent(50))
                output += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            case 7:
                let lead = 0xD800 + random.index(0x400)
                let trail = 0xDC00 + random.index(0x400)
                output += Array("\\u\(String(lead, radix: 16))\\u\(String(trail, radix: 16, uppercase: true))".utf8)
            case 8: output.append(UInt8(random.index(0x20)))  // a raw control character
            default: output += Array("moltbook".utf8)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private mutating func number(into output: inout [UInt8]) {
        var text = random.percent(30) ? "-" : ""
        switch random.index(4) {
        case 0: text += "0"
        case 1: text += String(1 + random.index(9))
        default:
            text += String(1 + random.index(9))
            for _ in 0..<random.index(random.percent(20) ? 30 : 8) { text += String(random.index(10)) }
        }
        if random.percent(40) {
            text += "."
            for _ in 0...random.index(random.percent(20) ? 25 : 6) { text += String(random.index(10)) }
        }
        if random.percent(30) {
            text += random.percent(50) ? "e" : "E"
            text += ["", "+", "-"][random.index(3)]
            text += String(random.percent(10) ? 280 + random.index(60) : random.index(40))
        }
        output += Array(text.utf8)
    }

    private mutating func whitespace(into output: inout [UInt8]) {
        guard random.percent(30) else { return }
        output += Array([" ", "\n", "\t", "\r\n  ", "  \t"][random.index(5)].utf8)
    }
}
