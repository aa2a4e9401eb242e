import Foundation
import Keychain
import MoltipassEngine

/// Model keys: the keys of OpenAI-compatible model servers that a recipe's `openai:` generator
/// uses (issue 21). They live in the same keychain as the agents' keys but in their own
/// namespace: nothing here returns an agent's key, and the agent methods never see a model key.
extension KeysSession {
    /// Stores `key` as the model key `name` (`keys add --model`). The answer names the entry and
    /// the key's fingerprint, never the key.
    public func addModelKey(name: String, key: ModelKey, replace: Bool, now: Date = Date()) throws
        -> KeychainChangeReport
    {
        let existing = try store.read().modelEntry(named: name)
        try store.addModelKey(name: name, key: key, replace: replace, now: now)
        let result = existing != nil ? "replaced" : "added"
        var report = KeychainChangeReport(
            result: result, keychain: path, text: "\(result) model key \(name) (key \(key.fingerprint))")
        report.name = name
        report.kind = KeychainEntry.Kind.model.rawValue
        report.keyFingerprint = key.fingerprint
        return report
    }

    /// Removes the model key `name` (`keys remove --model`); an agent of that name stays.
    public func removeModelKey(name: String) throws -> KeychainChangeReport {
        let removed = try store.read().modelEntry(named: name)  // unlocks once; the removal reuses the derived key
        try store.removeModelKey(name: name)
        var report = KeychainChangeReport(result: "removed", keychain: path, text: "removed model key \(name)")
        report.name = name
        report.kind = KeychainEntry.Kind.model.rawValue
        report.keyFingerprint = removed?.keyFingerprint
        return report
    }

    /// `keys list`: the agent entries and the model keys, each sorted by name, without keys.
    public func listAll() throws -> (agents: [KeychainEntry], models: [KeychainEntry]) {
        let contents = try store.read()
        return (contents.entries, contents.modelEntries)
    }

    /// The model key `name`, for a generator about to call its model server. The keychain is
    /// read (and unlocked, on first use: a passphrase file, the environment or a prompt, then
    /// scrypt) off the calling task's thread.
    ///
    /// Throws a `KeychainError` whose description says what to do: `.fileNotFound` (no keychain:
    /// `moltipass keys init`), `.wrongPassphraseOrModified`, `.noPassphraseSource`, or
    /// `.modelKeyNotFound` (`moltipass keys add --model NAME`), also when only an agent has
    /// that name.
    public func modelKey(named name: String) async throws -> ModelKey {
        let store = store
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try store.modelKey(named: name) })
            }
        }
    }
}
