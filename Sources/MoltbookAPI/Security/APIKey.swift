import Crypto
import Foundation

/// A Moltbook API key that cannot leak by accident.
///
/// `description`, `debugDescription`, string interpolation and reflection all show only
/// the fingerprint. The raw value is reachable through `withRawValue` (the client, to build the
/// `Authorization` header; `keys export`, on an explicit flag) and nowhere else.
public struct APIKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let raw: String

    /// Wraps a key. Surrounding whitespace (a trailing newline from a file or pipe) is removed.
    public init(_ raw: String) {
        self.raw = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        Redactor.remember(self.raw)
    }

    /// The first 8 hex digits of SHA-256 over the key: enough to tell keys apart in logs,
    /// useless for recovering the key.
    public var fingerprint: String {
        let digest = SHA256.hash(data: Data(raw.utf8))
        return digest.prefix(4).hexString
    }

    /// Whether the key has the `moltbook_` prefix every real key has. Nothing else is checked
    /// client-side (formats have changed between versions).
    public var hasExpectedPrefix: Bool { raw.hasPrefix("moltbook_") }

    /// Whether the key is empty or has characters that cannot go into a header.
    public var isUsable: Bool {
        !raw.isEmpty && raw.unicodeScalars.allSatisfy { $0.value > 32 && $0.value < 127 }
    }

    /// Calls `body` with the raw key. Keep the value inside the closure.
    public func withRawValue<T>(_ body: (String) throws -> T) rethrows -> T {
        try body(raw)
    }

    public var description: String { "APIKey(\(fingerprint))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["fingerprint": fingerprint]) }
}
