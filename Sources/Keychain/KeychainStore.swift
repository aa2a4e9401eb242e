import Crypto
import FileSafety
import Foundation
import MoltbookAPI
import Synchronization

/// A key file on disk and the passphrase that unlocks it.
///
/// Nothing is read or derived until a method needs it, so the engine can hold a store from
/// start-up and unlock only when a request is actually due. Reads take no lock (a write
/// renames a complete file into place, so a reader sees the old or the new file). Every
/// change locks `<file>.lock`, re-reads the file under the lock, applies the change and
/// writes atomically, so concurrent writers in any number of processes all land.
public final class KeychainStore: Sendable {
    /// The key file's path as given.
    public let path: String
    /// Files larger than this are refused without being read: 1 MiB.
    public static let maximumFileSize = 1 << 20

    let passphraseSource: @Sendable () throws -> Passphrase
    let unlocked = Mutex<Unlocked>(Unlocked())
    let writeHook: AtomicFile.Hook?

    /// The resolved passphrase and the last derived key (scrypt is the expensive part).
    struct Unlocked {
        var passphrase: Passphrase?
        var derived: (salt: Data, scrypt: ScryptParameters, key: SymmetricKey)?
    }

    /// A store for the file at `path`, unlocked with `passphrase`.
    public convenience init(path: String, passphrase: Passphrase) {
        self.init(path: path, passphrase: { passphrase }, writeHook: nil)
    }

    /// A store whose passphrase is resolved on first use (a prompt or a secret file read only
    /// when a key is actually needed). A successful result is remembered.
    public convenience init(path: String, passphrase: @escaping @Sendable () throws -> Passphrase) {
        self.init(path: path, passphrase: passphrase, writeHook: nil)
    }

    /// A store unlocked through `resolver` on first use: the CLI and engine form.
    public convenience init(path: String, resolver: PassphraseResolver) {
        self.init(path: path, passphrase: { try resolver.passphrase() }, writeHook: nil)
    }

    init(path: String, passphrase: @escaping @Sendable () throws -> Passphrase, writeHook: AtomicFile.Hook?) {
        self.path = path
        self.passphraseSource = passphrase
        self.writeHook = writeHook
    }

    /// Creates an empty key file (generation 1) at `path`, creating missing parent
    /// directories 0700. Fails if anything already exists there.
    @discardableResult
    public static func create(
        at path: String, passphrase: Passphrase, scrypt: ScryptParameters = .strong,
        cipher: KeychainCipher = .chaCha20Poly1305
    ) throws -> KeychainStore {
        let store = KeychainStore(path: path, passphrase: passphrase)
        try store.create(scrypt: scrypt, cipher: cipher)
        return store
    }

    func create(scrypt: ScryptParameters, cipher: KeychainCipher) throws {
        if let violation = scrypt.boundsViolation { throw KeychainError.invalidKDFParameters(detail: violation) }
        let passphrase = try resolvedPassphrase()
        guard !passphrase.isEmpty else { throw KeychainError.emptyPassphrase(source: "the caller") }
        let target = PrivateFile.resolved(path)
        let lock = try KeychainError.mappingFiles {
            try PrivateFile.createDirectory(for: target)
            return try FileLock.lock(path: FileLock.lockPath(for: target))
        }
        defer { lock.unlock() }
        guard !PrivateFile.exists(target) else { throw KeychainError.alreadyExists(path: path) }
        let header = KeychainCodec.freshHeader(scrypt: scrypt, cipher: cipher, generation: 1)
        let key = try derive(passphrase, header)
        let sealed = try KeychainCodec.seal([], header: header, key: key)
        try KeychainError.mappingFiles { try AtomicFile.write(sealed, to: target, hook: writeHook) }
        remember(passphrase, header, key)
    }

    /// Whether a file exists at `path` (it may still fail to open).
    public var exists: Bool { PrivateFile.exists(path) }

    /// Reads and decrypts the file. No lock: safe alongside writers.
    public func read() throws -> KeychainContents {
        let data = try KeychainError.mappingFiles { try PrivateFile.read(path, limit: Self.maximumFileSize) }
        let (header, stored) = try KeychainCodec.open(data, path: path, key: fileKey)
        return KeychainContents(header: header, stored: stored, path: path)
    }

    /// The agent key stored under `name`, reading the file now (the engine's lazy fetch).
    public func key(for name: String) throws -> APIKey {
        try read().key(for: name)
    }

    /// The model key stored under `name`, reading the file now.
    public func modelKey(named name: String) throws -> ModelKey {
        try read().modelKey(named: name)
    }

    /// Adds an agent entry, or replaces the agent entry with the same name when `replace` is true
    /// (keeping its `createdAt`). `now` becomes `updatedAt` (and `createdAt` of a new entry). A
    /// model key of the same name is another entry and stays as it is.
    @discardableResult
    public func add(
        name: String, key: APIKey, metadata: KeychainEntry.Metadata = .init(), replace: Bool = false, now: Date
    ) throws -> KeychainContents {
        guard KeychainEntry.isValidName(name) else { throw KeychainError.invalidEntryName(name: name) }
        guard key.isUsable else { throw KeychainError.unusableKey(name: name) }
        return try modify { entries in
            let stamp = now.wholeSeconds
            let entry = StoredEntry(name: name, key: key, metadata: metadata, createdAt: stamp, updatedAt: stamp)
            if let index = entries.firstIndex(where: { $0.kind == .agent && $0.name == name }) {
                guard replace else { throw KeychainError.entryExists(name: name, path: path) }
                entries[index] = StoredEntry(
                    name: name, key: key, metadata: metadata, createdAt: entries[index].createdAt, updatedAt: stamp)
            } else {
                entries.append(entry)
            }
        }
    }

    /// Stores a model key under `name`, or replaces the model key of that name when `replace`
    /// is true (keeping its `createdAt`). An agent entry of the same name stays as it is. The
    /// file becomes format version 2 (docs/keychain-format.md).
    @discardableResult
    public func addModelKey(name: String, key: ModelKey, replace: Bool = false, now: Date) throws
        -> KeychainContents
    {
        guard KeychainEntry.isValidName(name) else { throw KeychainError.invalidEntryName(name: name) }
        guard key.isUsable else { throw KeychainError.unusableModelKey(name: name) }
        return try modify { entries in
            let stamp = now.wholeSeconds
            var entry = StoredEntry(
                name: name, kind: .model, key: key.bearer, metadata: .init(), createdAt: stamp, updatedAt: stamp)
            if let index = entries.firstIndex(where: { $0.kind == .model && $0.name == name }) {
                guard replace else { throw KeychainError.modelKeyExists(name: name, path: path) }
                entry.createdAt = entries[index].createdAt
                entries[index] = entry
            } else {
                entries.append(entry)
            }
        }
    }

    /// Removes the model key `name` (never an agent entry). The file goes back to format
    /// version 1 when it was the last model key.
    @discardableResult
    public func removeModelKey(name: String) throws -> KeychainContents {
        try modify { entries in
            guard let index = entries.firstIndex(where: { $0.kind == .model && $0.name == name }) else {
                throw KeychainError.modelKeyNotFound(name: name, path: path)
            }
            entries.remove(at: index)
        }
    }

    /// Removes the agent entry `name` (never a model key).
    @discardableResult
    public func remove(name: String) throws -> KeychainContents {
        try modify { entries in
            guard let index = entries.firstIndex(where: { $0.kind == .agent && $0.name == name }) else {
                throw KeychainError.entryNotFound(name: name, path: path)
            }
            entries.remove(at: index)
        }
    }

    /// Changes the metadata of the agent entry `name` in place (for example the claim status
    /// after a poll); the key is untouched and `updatedAt` becomes `now`.
    @discardableResult
    public func updateMetadata(
        name: String, now: Date, _ change: (inout KeychainEntry.Metadata) throws -> Void
    ) throws -> KeychainContents {
        try modify { entries in
            guard let index = entries.firstIndex(where: { $0.kind == .agent && $0.name == name }) else {
                throw KeychainError.entryNotFound(name: name, path: path)
            }
            try change(&entries[index].metadata)
            entries[index].updatedAt = now.wholeSeconds
        }
    }

    /// Re-encrypts every entry under `newPassphrase` with a fresh salt and nonce, optionally
    /// with new scrypt parameters (the current ones otherwise). This store uses the new
    /// passphrase from then on.
    @discardableResult
    public func changePassphrase(to newPassphrase: Passphrase, scrypt: ScryptParameters? = nil) throws
        -> KeychainContents
    {
        guard !newPassphrase.isEmpty else { throw KeychainError.emptyPassphrase(source: "the new passphrase") }
        if let violation = scrypt?.boundsViolation { throw KeychainError.invalidKDFParameters(detail: violation) }
        return try modify(rekeyWith: (newPassphrase, scrypt)) { _ in }
    }
}
