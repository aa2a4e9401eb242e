import Foundation

/// A passphrase that cannot print itself.
///
/// Like `APIKey`, every description and mirror is redacted; the bytes are reachable only
/// inside the module, for key derivation.
public struct Passphrase: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The UTF-8 bytes, used as given (no Unicode normalisation, no trimming).
    let bytes: [UInt8]

    /// Wraps a passphrase exactly as typed.
    public init(_ string: String) { bytes = Array(string.utf8) }

    /// Wraps raw bytes (a passphrase file's contents, newline already removed).
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Whether the passphrase has no bytes at all.
    public var isEmpty: Bool { bytes.isEmpty }

    public var description: String { "Passphrase(redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
