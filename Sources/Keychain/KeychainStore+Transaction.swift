import Crypto
import FileSafety
import Foundation

extension KeychainStore {
    /// Lock, re-read, change, seal, write atomically, unlock. The generation goes up by one.
    func modify(
        rekeyWith rekey: (passphrase: Passphrase, scrypt: ScryptParameters?)? = nil,
        _ change: (inout [StoredEntry]) throws -> Void
    ) throws -> KeychainContents {
        let target = PrivateFile.resolved(path)
        let (lock, data) = try KeychainError.mappingFiles {
            let lock = try FileLock.lock(path: FileLock.lockPath(for: target))
            return (lock, try PrivateFile.read(target, limit: Self.maximumFileSize))
        }
        defer { lock.unlock() }
        let (current, stored) = try KeychainCodec.open(data, path: path, key: fileKey)
        var entries = stored
        try change(&entries)
        let generation = current.generation == .max ? current.generation : current.generation + 1
        var header = current
        header.generation = generation
        header.nonce = KeychainCodec.randomBytes(KeychainCipher.nonceLength)
        let key: SymmetricKey
        if let rekey {
            header = KeychainCodec.freshHeader(
                scrypt: rekey.scrypt ?? current.scrypt, cipher: current.cipher, generation: generation)
            key = try derive(rekey.passphrase, header)
        } else {
            key = try fileKey(header)
        }
        header.version = KeychainHeader.version(for: entries)
        let sealed = try KeychainCodec.seal(entries, header: header, key: key)
        try KeychainError.mappingFiles { try AtomicFile.write(sealed, to: target, hook: writeHook) }
        if let rekey { remember(rekey.passphrase, header, key) }
        return KeychainContents(header: header, stored: entries, path: path)
    }
}
