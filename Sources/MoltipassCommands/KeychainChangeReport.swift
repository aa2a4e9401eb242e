import Foundation
import Keychain
import MoltipassEngine

/// What `keys init`, `keys add`, `keys remove` and `keys passwd` report: the line for people and,
/// with `--json`, one object for scripts (README, "Keychain"). Never a key or a passphrase.
public struct KeychainChangeReport: Sendable, Equatable, CommandReport {
    /// The scrypt work factors of a new keychain.
    public struct Scrypt: Sendable, Equatable, Encodable {
        public var log2N: Int
        public var r: Int
        public var p: Int

        enum CodingKeys: String, CodingKey {
            case r, p
            case log2N = "log2_n"
        }
    }

    /// What changed: `created`, `added`, `replaced`, `removed` or `passphrase_changed`.
    public var result: String
    /// The keychain file.
    public var keychain: String
    /// `keys add`, `keys remove`: the entry.
    public var name: String?
    /// `keys add --model`, `keys remove --model`: `model` (absent for an agent entry).
    public var kind: String?
    /// `keys add`: the stored key's fingerprint; `keys remove`: the removed key's.
    public var keyFingerprint: String?
    /// `keys add`: the API the entry now uses (nil: https://www.moltbook.com/api/v1).
    public var baseURL: String?
    /// `keys init`: the work factors the file is sealed with.
    public var scrypt: Scrypt?
    /// The line printed without `--json`.
    public var text: String

    public init(result: String, keychain: String, text: String) {
        self.result = result
        self.keychain = keychain
        self.text = text
    }

    enum CodingKeys: String, CodingKey {
        case result, keychain, name, kind, scrypt
        case keyFingerprint = "key_fingerprint"
        case baseURL = "base_url"
    }
}

extension KeychainChangeReport.Scrypt {
    init(_ parameters: ScryptParameters) {
        self.init(log2N: Int(parameters.log2N), r: Int(parameters.r), p: Int(parameters.p))
    }
}
