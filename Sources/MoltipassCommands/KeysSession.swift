import Foundation
import Keychain
import MoltbookAPI
import MoltipassEngine

/// The keychain a command works on: its path and how its passphrase is resolved.
///
/// Built from the command's flags and the environment; nothing is read or unlocked until a
/// method needs it.
public struct KeysSession: Sendable {
    /// The key file's path: `--keychain`, else `MOLTIPASS_KEYCHAIN`, else the XDG default.
    public let path: String
    /// Resolves the passphrase: `--passphrase-file`, `MOLTIPASS_PASSPHRASE_FILE`,
    /// `MOLTIPASS_PASSPHRASE`, then the terminal.
    public let resolver: PassphraseResolver
    /// The store for `path`, unlocked through `resolver` on first use.
    public let store: KeychainStore

    public init(
        keychain: String?, passphraseFile: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        isInteractive: Bool = TerminalPrompt.isAvailable
    ) throws {
        let explicit = keychain.flatMap { $0.isEmpty ? nil : $0 }
        guard let path = explicit ?? KeychainLocation.defaultPath(environment: environment) else {
            throw KeysFailure(
                .usage, "no keychain location: pass --keychain PATH or set \(KeychainLocation.variable) or HOME")
        }
        self.path = path
        resolver = PassphraseResolver(
            passphraseFile: passphraseFile, environment: environment, isInteractive: isInteractive)
        store = KeychainStore(path: path, resolver: resolver)
    }

    /// The scrypt parameters for `keys init`: the strong default, or `N = 2^log2N` (r = 8,
    /// p = 1) when given, held to the format's bounds.
    public static func scryptParameters(log2N: Int?) throws -> ScryptParameters {
        guard let log2N else { return .strong }
        guard (1...Int(ScryptParameters.maxLog2N)).contains(log2N) else {
            throw KeysFailure(.usage, "--scrypt-log2n must be 1...\(ScryptParameters.maxLog2N), not \(log2N)")
        }
        return ScryptParameters(log2N: UInt8(log2N), r: 8, p: 1)
    }

    /// Creates an empty keychain under a new passphrase (typed twice when prompted).
    public func initialize(scrypt: ScryptParameters) throws -> KeychainChangeReport {
        let passphrase = try resolver.newPassphrase()
        try KeychainStore.create(at: path, passphrase: passphrase, scrypt: scrypt)
        var report = KeychainChangeReport(
            result: "created", keychain: path, text: "created keychain \(path) (\(scrypt))")
        report.scrypt = .init(scrypt)
        return report
    }

    /// Stores `key` under `name`, with `baseURL` (an already checked `--base-url`) as the API
    /// the key belongs to. Replacing an entry without a `baseURL` keeps the entry's. The answer
    /// names the entry, the key's fingerprint and the base URL (the line: the given one), never the key.
    public func add(name: String, key: APIKey, baseURL: URL? = nil, replace: Bool, now: Date = Date()) throws
        -> KeychainChangeReport
    {
        let existing = try store.read().entry(named: name)
        var metadata = KeychainEntry.Metadata()
        if let baseURL {
            metadata.baseURL = KeysEndpoint.storedBaseURL(baseURL)
        } else {
            metadata.baseURL = existing?.metadata.baseURL
        }
        try store.add(name: name, key: key, metadata: metadata, replace: replace, now: now)
        let result = existing != nil ? "replaced" : "added"
        let url = baseURL.map { ", base URL \($0.absoluteString)" } ?? ""
        var report = KeychainChangeReport(
            result: result, keychain: path, text: "\(result) \(name) (key \(key.fingerprint)\(url))")
        report.name = name
        report.keyFingerprint = key.fingerprint
        report.baseURL = metadata.baseURL
        return report
    }

    /// Every entry without its key, sorted by name.
    public func list() throws -> [KeychainEntry] {
        try store.read().entries
    }

    /// Removes the entry `name`; the report names the removed key's fingerprint.
    public func remove(name: String) throws -> KeychainChangeReport {
        let removed = try store.read().entry(named: name)  // unlocks once; the removal reuses the derived key
        try store.remove(name: name)
        var report = KeychainChangeReport(result: "removed", keychain: path, text: "removed \(name)")
        report.name = name
        report.keyFingerprint = removed?.keyFingerprint
        return report
    }

    /// Re-encrypts the keychain under a new passphrase read from `newPassphraseFile`, or typed
    /// twice on the terminal. The environment's passphrase variables are never taken as the new one.
    public func changePassphrase(newPassphraseFile: String?, isInteractive: Bool = TerminalPrompt.isAvailable)
        throws -> KeychainChangeReport
    {
        _ = try store.read()  // unlock with the current passphrase first
        let source = PassphraseResolver(
            passphraseFile: newPassphraseFile, environment: [:], isInteractive: isInteractive)
        let newPassphrase: Passphrase
        do {
            newPassphrase = try source.newPassphrase()
        } catch KeychainError.noPassphraseSource {
            throw KeysFailure(
                .keychain, "no new passphrase: pass --new-passphrase-file PATH (mode 0600) or run on a terminal")
        }
        try store.changePassphrase(to: newPassphrase)
        return KeychainChangeReport(
            result: "passphrase_changed", keychain: path, text: "changed the passphrase of \(path)")
    }

    /// The entry `name` with its key, only when `reveal` is set.
    public func export(name: String, reveal: Bool) throws -> KeyExport {
        guard reveal else {
            throw KeysFailure(
                .usage,
                "refusing to print the key of \(name) without --reveal (it would land in scrollback and logs); "
                    + "run `moltipass keys export \(name) --reveal` to print it for migration")
        }
        let (entry, key) = try entryAndKey(name)
        return KeyExport(name: name, key: key, baseURL: entry.metadata.baseURL, keychain: path)
    }

    /// The entry `name` and its key, or `KeychainError.entryNotFound`.
    public func entryAndKey(_ name: String) throws -> (KeychainEntry, APIKey) {
        let contents = try store.read()
        let key = try contents.key(for: name)
        guard let entry = contents.entry(named: name) else {
            throw KeychainError.entryNotFound(name: name, path: path)
        }
        return (entry, key)
    }
}
