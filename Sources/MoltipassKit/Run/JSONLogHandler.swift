import Foundation
import Logging
import Synchronization

/// Writes one JSON object per log event (containers, log shippers):
/// `{"time":…,"level":…,"message":…, <metadata>…}` with sorted keys. Metadata never carries
/// a key: the engine logs fingerprints only.
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
        var object: [String: String] = [
            "time": ISO8601DateFormatter().string(from: Date()), "level": event.level.rawValue,
            "message": "\(event.message)", "logger": label,
        ]
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        for (key, value) in merged { object[key] = "\(value)" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(object) else { return }
        line.append(0x0A)
        output.write(line)
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
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        output.write(Data("\(event.level) \(event.message)\(fields.isEmpty ? "" : " " + fields)\n".utf8))
    }
}
