import Crypto
import CryptoExtras
import Foundation

/// Turns entries into file bytes and back. Pure: no file system, no clock.
enum KeychainCodec {
    /// Derives the 32-byte file key from a passphrase with the header's scrypt parameters.
    /// Callers have already checked the bounds (the header parser does).
    static func deriveKey(_ passphrase: Passphrase, scrypt: ScryptParameters, salt: Data) throws -> SymmetricKey {
        try KDF.Scrypt.deriveKey(
            from: passphrase.bytes, salt: salt, outputByteCount: 32, rounds: scrypt.n, blockSize: Int(scrypt.r),
            parallelism: Int(scrypt.p))
    }

    /// A fresh header: random salt and nonce.
    static func freshHeader(scrypt: ScryptParameters, cipher: KeychainCipher, generation: UInt64) -> KeychainHeader {
        KeychainHeader(
            scrypt: scrypt, salt: randomBytes(KeychainHeader.defaultSaltLength), cipher: cipher,
            nonce: randomBytes(KeychainCipher.nonceLength), generation: generation)
    }

    /// The complete file: header, then ciphertext and tag over the padded JSON entry list.
    /// `header.version` must be `KeychainHeader.version(for: entries)`.
    static func seal(_ entries: [StoredEntry], header: KeychainHeader, key: SymmetricKey) throws -> Data {
        let associatedData = header.encoded
        let plaintext = try StoredPayload.encode(entries)
        return associatedData
            + (try header.cipher.seal(plaintext, key: key, nonce: header.nonce, associatedData: associatedData))
    }

    /// Parses and decrypts `file`. `key` is asked for the file key once the header has
    /// passed every check (so it never derives with out-of-bounds parameters).
    static func open(
        _ file: Data, path: String, key: (KeychainHeader) throws -> SymmetricKey
    ) throws -> (KeychainHeader, [StoredEntry]) {
        let (header, length) = try KeychainHeader.parse(file, path: path)
        let sealed = file.dropFirst(length)
        guard sealed.count >= KeychainCipher.tagLength else {
            throw KeychainError.wrongPassphraseOrModified(path: path)
        }
        let associatedData = Data(file.prefix(length))
        guard
            let plaintext = header.cipher.open(
                Data(sealed), key: try key(header), nonce: header.nonce, associatedData: associatedData)
        else { throw KeychainError.wrongPassphraseOrModified(path: path) }
        return (header, try StoredPayload.decode(plaintext, path: path, version: header.version))
    }

    static func randomBytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}
