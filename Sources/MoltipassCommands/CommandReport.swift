import Foundation
import MoltipassEngine

/// What a command reports: lines for people (`text`) and, with `--json`, one object for scripts
/// with the same facts under stable snake_case names (README, "Keychain"). `text` is never encoded.
public protocol CommandReport: Encodable {
    /// The lines printed without `--json`.
    var text: String { get }
}

extension CommandReport {
    /// The JSON object, as `ReportJSON` writes it.
    public func json() throws -> String {
        try ReportJSON.string(self)
    }
}

/// The one JSON form of command reports: keys sorted, one field per line, slashes unescaped.
public enum ReportJSON {
    /// `value` as JSON text, without a trailing newline.
    public static func string(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
