import Foundation
import Logging
import Synchronization

/// A swift-log handler that keeps every rendered line in memory, so tests can assert what
/// was (and was not) logged.
public struct CapturingLogHandler: LogHandler {
    /// The shared store lines are appended to.
    public final class Store: Sendable {
        private let lines = Mutex<[String]>([])

        public init() {}

        public var all: [String] { lines.withLock { $0 } }

        public var joined: String { all.joined(separator: "\n") }

        func append(_ line: String) { lines.withLock { $0.append(line) } }
    }

    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace
    let store: Store
    let label: String

    public init(label: String, store: Store) {
        self.label = label
        self.store = store
    }

    /// A logger at trace level writing into `store`.
    public static func logger(_ store: Store, label: String = "test") -> Logger {
        Logger(label: label) { CapturingLogHandler(label: $0, store: store) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        store.append("\(event.level) \(label): \(event.message) \(rendered)")
    }
}
