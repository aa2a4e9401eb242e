import Crypto
import Foundation

extension KeychainStore {
    /// The passphrase, resolved from the source on first use and then remembered.
    func resolvedPassphrase() throws -> Passphrase {
        try unlocked.withLock { state throws(any Error) -> Passphrase in
            if let passphrase = state.passphrase { return passphrase }
            let passphrase = try passphraseSource()
            state.passphrase = passphrase
            return passphrase
        }
    }

    /// The file key for `header`: the cached one when salt and parameters match, otherwise
    /// derived now (the header has passed its bounds check by the time this is called).
    func fileKey(_ header: KeychainHeader) throws -> SymmetricKey {
        if let cached = unlocked.withLock({ state in
            state.derived.flatMap { $0.salt == header.salt && $0.scrypt == header.scrypt ? $0.key : nil }
        }) {
            return cached
        }
        let key = try derive(try resolvedPassphrase(), header)
        unlocked.withLock { $0.derived = (header.salt, header.scrypt, key) }
        return key
    }

    /// Runs scrypt for `passphrase` with the header's salt and parameters.
    func derive(_ passphrase: Passphrase, _ header: KeychainHeader) throws -> SymmetricKey {
        try KeychainCodec.deriveKey(passphrase, scrypt: header.scrypt, salt: header.salt)
    }

    /// Makes `passphrase` and its derived key the ones this store uses (after a passphrase change).
    func remember(_ passphrase: Passphrase, _ header: KeychainHeader, _ key: SymmetricKey) {
        unlocked.withLock { state in
            state.passphrase = passphrase
            state.derived = (header.salt, header.scrypt, key)
        }
    }
}
