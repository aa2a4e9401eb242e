import Foundation
import MoltbookAPI

/// A decrypted snapshot of a key file: the entries' metadata, and their keys on request.
///
/// Agent entries and model keys are two namespaces: `entries`, `entry(named:)` and `key(for:)`
/// see agents only (everything that talks to Moltbook goes through them); `modelEntries`,
/// `modelEntry(named:)` and `modelKey(named:)` see model keys only.
///
/// A value: it does not change when the file does. Read a fresh one from `KeychainStore`.
public struct KeychainContents: Sendable {
    /// Incremented on every write; 1 for a freshly created file.
    public let generation: UInt64
    /// The file's format version: 1, or 2 when it holds model keys (docs/keychain-format.md).
    public let formatVersion: UInt8
    /// The work factors the file is sealed with.
    public let scrypt: ScryptParameters
    /// The cipher the file is sealed with.
    public let cipher: KeychainCipher
    let stored: [StoredEntry]
    let path: String

    init(header: KeychainHeader, stored: [StoredEntry], path: String) {
        generation = header.generation
        formatVersion = header.version
        scrypt = header.scrypt
        cipher = header.cipher
        self.stored = stored
        self.path = path
    }

    /// Every agent entry, metadata only, sorted by name. No model keys.
    public var entries: [KeychainEntry] { entries(.agent) }

    /// The agent entry named `name`, if any (never a model key).
    public func entry(named name: String) -> KeychainEntry? {
        stored(.agent, name)?.publicEntry
    }

    /// The Moltbook API key of the agent entry `name` (never a model key).
    public func key(for name: String) throws -> APIKey {
        guard let entry = stored(.agent, name) else { throw KeychainError.entryNotFound(name: name, path: path) }
        return entry.key
    }

    /// Every model key, metadata only, sorted by name.
    public var modelEntries: [KeychainEntry] { entries(.model) }

    /// The model key entry named `name`, if any (never an agent's).
    public func modelEntry(named name: String) -> KeychainEntry? {
        stored(.model, name)?.publicEntry
    }

    /// The model key stored under `name`, or `KeychainError.modelKeyNotFound` (also when only an
    /// agent has that name: an agent's key is never returned as a model key).
    public func modelKey(named name: String) throws -> ModelKey {
        guard let entry = stored(.model, name) else { throw KeychainError.modelKeyNotFound(name: name, path: path) }
        return entry.key.withRawValue { ModelKey($0) }
    }

    func entries(_ kind: KeychainEntry.Kind) -> [KeychainEntry] {
        stored.filter { $0.kind == kind }.map(\.publicEntry).sorted { $0.name < $1.name }
    }

    func stored(_ kind: KeychainEntry.Kind, _ name: String) -> StoredEntry? {
        stored.first { $0.kind == kind && $0.name == name }
    }
}
