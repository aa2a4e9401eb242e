import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// The field names a docs table documents: the `code` spans of the first column of the table
/// whose header starts with `header` (README's "`--json` field", docs/challenges.md's).
func documentedFields(table header: String, in lines: [Substring]) -> Set<String> {
    Set(Readme.table(startingWith: header, in: lines).flatMap { Readme.codeSpans($0[0]) })
}

/// The one JSON object a `--json` run printed on stdout; its fields must be exactly `fields`, and
/// every one of them `documented`.
func reportObject(
    _ result: ProcessRunner.Result, fields: Set<String>, documented: Set<String>,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> [String: JSONValue] {
    let object = try #require(
        try JSONValue.parse(Data(result.stdout.utf8)).object, "\(result.stdout)", sourceLocation: sourceLocation)
    #expect(Set(object.keys) == fields, sourceLocation: sourceLocation)
    #expect(fields.isSubset(of: documented), "undocumented: \(fields)", sourceLocation: sourceLocation)
    return object
}
