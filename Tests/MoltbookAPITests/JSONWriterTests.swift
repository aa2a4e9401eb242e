import Foundation
import MoltipassTesting
import Testing

@testable import MoltbookAPI

/// `JSONWriter` (behind `JSONValue.encoded()`): what parsing gives back, and the bytes of what it
/// replaced, `JSONEncoder` with sorted keys and unescaped slashes.
@Suite("JSON writer")
struct JSONWriterTests {
    /// Every API fixture written and parsed again is the same value, and the same bytes as
    /// `JSONEncoder` gives.
    @Test func fixturesRoundTripAndMatchJSONEncoder() throws {
        let names = try Fixtures.names(in: "api", withExtension: "json")
        #expect(names.count >= 40)
        for name in names {
            let value = try JSONValue.parse(try Fixtures.data("api/\(name)"))
            let written = value.encoded()
            #expect(try JSONValue.parse(written) == value, "\(name)")
            #expect(written == (try Self.reference.encode(value)), "\(name)")
        }
    }

    /// Escapes, numbers and nesting, byte for byte.
    @Test func literals() {
        let value: JSONValue = .object([
            "b": .array([.number(1), .number(-2.5), .number(1e20), .number(0), .null, .bool(true), .bool(false)]),
            "a": .string("quote \" backslash \\ slash / tab \t line \n cr \r bell \u{07} é 😀"),
            "c": .object([:]), "": .array([]),
        ])
        let expected =
            #"{"":[],"a":"quote \" backslash \\ slash / tab \t line \n cr \r bell \u0007 é 😀","#
            + #""b":[1,-2.5,1e+20,0,null,true,false],"c":{}}"#
        #expect(String(decoding: value.encoded(), as: UTF8.self) == expected)
        #expect(String(decoding: JSONValue.number(.infinity).encoded(), as: UTF8.self) == "null")
    }

    /// The parser tests' generated documents (seeded), parsed, survive a write and a parse unchanged.
    @Test func generatedDocumentsRoundTrip() throws {
        var generator = DocumentGenerator(seed: 0x5EED_0F_1503)
        var checked = 0
        for _ in 0..<2_000 {
            guard let value = try? JSONValue.parse(Data(generator.document())) else { continue }
            checked += 1
            #expect(try JSONValue.parse(value.encoded()) == value)
        }
        #expect(checked > 500)
    }

    static let reference: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
