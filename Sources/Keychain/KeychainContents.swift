import Foundation
import MoltbookAPI

/// A decrypted snapshot of a key file: the entries' metadata, and their keys on request.
///
/// A value: it does not change when the file does. Read a fresh one from `KeychainStore`.
public struct KeychainContents: Sendable {
    /// Incremented on every write; 1 for a freshly created file.
    public let generation: UInt64
    /// The work factors the file is sealed with.
    public let scrypt: ScryptParameters
    /// The cipher the file is sealed with.
    public let cipher: KeychainCipher
    let stored: [StoredEntry]
    let path: String

    init(header: KeychainHeader, stored: [StoredEntry], path: String) {
        generation = header.generation
        scrypt = header.scrypt
        cipher = header.cipher
        self.stored = stored
        self.path = path
    }

    /// Every entry, metadata only, sorted by name.
    public var entries: [KeychainEntry] { stored.map(\.publicEntry).sorted { $0.name < $1.name } }

    /// The entry named `name`, if any.
    public func entry(named name: String) -> KeychainEntry? {
        stored.first { $0.name == name }?.publicEntry
    }

    /// The key stored under `name`.
    public func key(for name: String) throws -> APIKey {
        guard let entry = stored.first(where: { $0.name == name }) else {
            throw KeychainError.entryNotFound(name: name, path: path)
        }
        return entry.key
    }
}
