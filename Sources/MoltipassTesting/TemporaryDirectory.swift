import Foundation

/// A fresh directory under the system temp dir, removed by `remove()` (tests call it in `defer`).
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public init(prefix: String = "moltipass-test") throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        url = base.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public var path: String { url.path }

    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}
