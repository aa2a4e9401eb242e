import MoltbookAPI

/// The API key of an OpenAI-compatible model server (a recipe's `openai:` generator), kept in
/// the keychain as a model key: a separate kind of entry from an agent's Moltbook key.
///
/// A distinct type from `APIKey`, so a model key cannot be handed to a Moltbook client by
/// mistake. Like `APIKey` it cannot print itself: `description`, `debugDescription`, string
/// interpolation, `dump` and reflection show only the fingerprint.
public struct ModelKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// Longest accepted key, in bytes: 4 KiB.
    public static let maximumLength = 4096

    /// The secret, in `APIKey`'s redacting wrapper (same trimming, same fingerprint).
    private let secret: APIKey

    /// Wraps a key. Surrounding whitespace (a trailing newline from a file or pipe) is removed.
    public init(_ raw: String) {
        secret = APIKey(raw)
    }

    /// The first 8 hex digits of SHA-256 over the key, for logs and `keys list`.
    public var fingerprint: String { secret.fingerprint }

    /// Whether the key can be stored and sent: 1 to 4096 bytes of printable ASCII, with no
    /// space, tab, newline or other control character (it goes into an `Authorization` header).
    public var isUsable: Bool {
        secret.isUsable && secret.withRawValue { $0.utf8.count <= Self.maximumLength }
    }

    /// The key as the bearer credential an HTTP client takes (`ChatCompletionsClient(key:)`).
    /// Still redacted when printed; hand it only to the client for the model's own base URL.
    public var bearer: APIKey { secret }

    /// Calls `body` with the raw key. Keep the value inside the closure.
    public func withRawValue<T>(_ body: (String) throws -> T) rethrows -> T {
        try secret.withRawValue(body)
    }

    public var description: String { "ModelKey(\(fingerprint))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["fingerprint": fingerprint]) }
}
