import Logging
import MoltipassEngine

/// `--log-level`: swift-log's level names, and `warn` for `warning` (what most tools call it).
public enum LogLevelOption {
    /// The names `--log-level` accepts, in order of severity.
    public static let names = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    /// The level `text` names, or nil.
    public static func level(_ text: String) -> Logger.Level? {
        let name = text.lowercased()
        return Logger.Level(rawValue: name == "warn" ? "warning" : name)
    }

    /// The message for a value that names no level: what was given and every accepted value.
    public static func problem(_ text: String) -> String {
        "unknown --log-level `\(text)`: use one of \(names.joined(separator: ", ")) (warn is warning)"
    }
}
