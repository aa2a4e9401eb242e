import Foundation
import Logging
import MoltbookAPI
import MoltipassEngine

/// Writes one JSON object per log event (containers, log shippers), keys sorted:
/// `{"level":…,"logger":…,"message":…,"time":…, <metadata>…}`. `time` is RFC 3339 UTC with
/// milliseconds. Metadata keeps its JSON type where it has one (an `Int` step stays a number);
/// the four base fields cannot be overwritten by metadata. Metadata never carries a key: the
/// engine logs fingerprints only. Field names: `docs/deploy.md`, "Logs".
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    let label: String
    let output: FileHandle

    public init(label: String, level: Logger.Level, output: FileHandle) {
        self.label = label
        self.logLevel = level
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        output.write(Self.line(level: event.level, message: "\(event.message)", label: label, metadata: merged))
    }

    /// One encoded line (with its newline) at the current time.
    public static func line(
        level: Logger.Level, message: String, label: String, metadata: Logger.Metadata, at time: Date = Date()
    ) -> Data {
        var object: [String: Any] = [:]
        for (key, value) in metadata { object[key] = jsonValue(value) }
        object["time"] = time.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        object["level"] = level.rawValue
        object["message"] = Redactor.redact(message)
        object["logger"] = label
        guard
            var line = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return Data() }
        line.append(0x0A)
        return line
    }

    /// A metadata value as a JSON-serialisable value: integers, doubles and booleans stay
    /// numbers and booleans, everything else is its description.
    static func jsonValue(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): return Redactor.redact(text)
        case .stringConvertible(let convertible):
            switch convertible {
            case let flag as Bool: return flag
            case let number as Int: return number
            case let number as Double where number.isFinite: return number
            default: return Redactor.redact(convertible.description)
            }
        case .array(let values): return values.map(jsonValue)
        case .dictionary(let values): return values.mapValues(jsonValue)
        }
    }
}

/// Plain `level message key=value` lines (a terminal).
public struct TextLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    let output: FileHandle

    public init(level: Logger.Level, output: FileHandle) {
        self.logLevel = level
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        output.write(Self.line(level: event.level, message: "\(event.message)", metadata: merged))
    }

    /// `level message key=value …` with its newline; values with spaces are quoted.
    public static func line(level: Logger.Level, message: String, metadata: Logger.Metadata) -> Data {
        let fields = metadata.sorted { $0.key < $1.key }.map { key, value in
            let text = "\(value)"
            let quoted = text.isEmpty || text.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" })
            return "\(key)=\(quoted ? "\"" + text.replacingOccurrences(of: "\"", with: "\\\"") + "\"" : text)"
        }
        let text = "\(level) \(message)\(fields.isEmpty ? "" : " " + fields.joined(separator: " "))"
        return Data((Redactor.redact(text) + "\n").utf8)
    }
}
