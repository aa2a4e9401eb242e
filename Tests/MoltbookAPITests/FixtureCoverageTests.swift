import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

@Suite("Fixture coverage")
struct FixtureCoverageTests {
    /// Every API fixture is named by a decoding test in this target (so none is left unchecked),
    /// and every JSON fixture parses with the tolerant parser.
    @Test func everyFixtureIsExercised() throws {
        let testDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let sources = try FileManager.default.contentsOfDirectory(atPath: testDirectory.path)
            .filter { $0.hasSuffix(".swift") && $0 != "FixtureCoverageTests.swift" }
            .map { try String(contentsOf: testDirectory.appendingPathComponent($0), encoding: .utf8) }
            .joined()
        let files =
            try Fixtures.names(in: "api", withExtension: "json") + Fixtures.names(in: "api", withExtension: "html")
        #expect(files.count >= 45)
        for file in files {
            #expect(sources.contains("\"\(file)\"") || sources.contains("api/\(file)"), "fixture \(file) is not tested")
            if file.hasSuffix(".json") {
                #expect(throws: Never.self) { try JSONValue.parse(Fixtures.data("api/\(file)")) }
            }
        }
    }
}
