import Foundation
import MoltbookAPI
import MoltipassEngine

/// What `keys export NAME --reveal` prints: the key alone, or with `--json` one object holding the
/// key and what `keys add` needs to store it again elsewhere (README, "Keychain"). The only report
/// that holds a key; it exists only after `--reveal`.
public struct KeyExport: Sendable, Encodable {
    /// The keychain entry.
    public var name: String
    /// The key: encoded in `key`, never in a description.
    public var key: APIKey
    /// The API the entry uses (nil: https://www.moltbook.com/api/v1).
    public var baseURL: String?
    /// The keychain file the key was read from.
    public var keychain: String

    public init(name: String, key: APIKey, baseURL: String?, keychain: String) {
        self.name = name
        self.key = key
        self.baseURL = baseURL
        self.keychain = keychain
    }

    enum CodingKeys: String, CodingKey {
        case name, key, keychain
        case keyFingerprint = "key_fingerprint"
        case baseURL = "base_url"
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try key.withRawValue { try container.encode($0, forKey: .key) }
        try container.encode(key.fingerprint, forKey: .keyFingerprint)
        try container.encodeIfPresent(baseURL, forKey: .baseURL)
        try container.encode(keychain, forKey: .keychain)
    }
}
