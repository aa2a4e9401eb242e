import Crypto
import Foundation

/// The AEAD that seals the entry list. Both use a 32-byte key, a 12-byte nonce and a 16-byte tag.
public enum KeychainCipher: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// ChaCha20-Poly1305 (RFC 8439). The default.
    case chaCha20Poly1305 = 1
    /// AES-256-GCM.
    case aes256GCM = 2

    /// Nonce length in bytes.
    static let nonceLength = 12
    /// Tag length in bytes.
    static let tagLength = 16

    public var description: String {
        switch self {
        case .chaCha20Poly1305: "ChaCha20-Poly1305"
        case .aes256GCM: "AES-256-GCM"
        }
    }

    /// Seals `plaintext`, returning ciphertext followed by the tag.
    func seal(_ plaintext: Data, key: SymmetricKey, nonce: Data, associatedData: Data) throws -> Data {
        switch self {
        case .chaCha20Poly1305:
            let box = try ChaChaPoly.seal(
                plaintext, using: key, nonce: ChaChaPoly.Nonce(data: nonce), authenticating: associatedData)
            return box.ciphertext + box.tag
        case .aes256GCM:
            let box = try AES.GCM.seal(
                plaintext, using: key, nonce: AES.GCM.Nonce(data: nonce), authenticating: associatedData)
            return box.ciphertext + box.tag
        }
    }

    /// Opens ciphertext-plus-tag; `nil` when authentication fails for any reason.
    func open(_ sealed: Data, key: SymmetricKey, nonce: Data, associatedData: Data) -> Data? {
        guard sealed.count >= Self.tagLength else { return nil }
        let ciphertext = sealed.prefix(sealed.count - Self.tagLength)
        let tag = sealed.suffix(Self.tagLength)
        switch self {
        case .chaCha20Poly1305:
            guard let nonce = try? ChaChaPoly.Nonce(data: nonce),
                let box = try? ChaChaPoly.SealedBox(nonce: nonce, ciphertext: ciphertext, tag: tag)
            else { return nil }
            return try? ChaChaPoly.open(box, using: key, authenticating: associatedData)
        case .aes256GCM:
            guard let nonce = try? AES.GCM.Nonce(data: nonce),
                let box = try? AES.GCM.SealedBox(nonce: nonce, ciphertext: ciphertext, tag: tag)
            else { return nil }
            return try? AES.GCM.open(box, using: key, authenticating: associatedData)
        }
    }
}
