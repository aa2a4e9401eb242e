import Foundation

/// The plaintext header of a key file: everything before the ciphertext, authenticated as
/// associated data. Layout in docs/keychain-format.md.
struct KeychainHeader: Sendable, Equatable {
    /// "MPKCHAIN".
    static let magic = Data("MPKCHAIN".utf8)
    /// The versions this build reads. It writes 1 while the file holds only agent keys (so an
    /// older moltipass keeps reading and writing it) and 2 once it holds a model key: an older
    /// moltipass then refuses the file ("upgrade moltipass") instead of reading the model key as
    /// an agent's, or dropping it when it rewrites the file.
    static let supportedVersions: ClosedRange<UInt8> = 1...2
    /// The first version whose payload may hold model keys.
    static let modelKeysVersion: UInt8 = 2
    /// The KDF id for scrypt.
    static let scryptID: UInt8 = 1
    /// Accepted salt lengths.
    static let saltLengths = 16...64
    /// Salt length for new files.
    static let defaultSaltLength = 32

    /// The format version: `version(for:)` of the entries sealed under this header.
    var version: UInt8 = 1
    var scrypt: ScryptParameters
    var salt: Data
    var cipher: KeychainCipher
    var nonce: Data
    var generation: UInt64

    /// The header bytes, exactly as written and authenticated.
    var encoded: Data {
        var out = Self.magic
        out.append(version)
        out.append(Self.scryptID)
        out.append(contentsOf: [scrypt.log2N, scrypt.r, scrypt.p, UInt8(salt.count)])
        out.append(salt)
        out.append(cipher.rawValue)
        out.append(nonce)
        for shift in stride(from: 56, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: generation >> UInt64(shift)))
        }
        return out
    }

    /// Parses the header at the start of `file`, returning it and the offset where the
    /// ciphertext starts. Checks every field, including the KDF bounds, before returning.
    static func parse(_ file: Data, path: String) throws -> (header: KeychainHeader, length: Int) {
        let bytes = [UInt8](file)
        guard bytes.count >= magic.count, Data(bytes[0..<magic.count]) == magic else {
            throw KeychainError.notAKeychain(path: path)
        }
        var at = magic.count
        func take(_ count: Int, _ what: String) throws -> ArraySlice<UInt8> {
            guard bytes.count - at >= count else {
                throw KeychainError.malformedHeader(path: path, detail: "truncated in the \(what)")
            }
            defer { at += count }
            return bytes[at..<(at + count)]
        }
        let version = try take(1, "version").first ?? 0
        guard supportedVersions.contains(version) else {
            throw KeychainError.unsupportedVersion(path: path, version: version)
        }
        let kdf = try take(1, "KDF id").first ?? 0
        guard kdf == scryptID else { throw KeychainError.unsupportedKDF(path: path, id: kdf) }
        let params = Array(try take(4, "scrypt parameters"))
        let scrypt = ScryptParameters(log2N: params[0], r: params[1], p: params[2])
        if let violation = scrypt.boundsViolation {
            throw KeychainError.kdfParametersOutOfBounds(path: path, detail: violation)
        }
        let saltLength = Int(params[3])
        guard saltLengths.contains(saltLength) else {
            throw KeychainError.malformedHeader(
                path: path,
                detail: "salt length \(saltLength), accepted \(saltLengths.lowerBound)-\(saltLengths.upperBound)")
        }
        let salt = Data(try take(saltLength, "salt"))
        let cipherID = try take(1, "cipher id").first ?? 0
        guard let cipher = KeychainCipher(rawValue: cipherID) else {
            throw KeychainError.unsupportedCipher(path: path, id: cipherID)
        }
        let nonce = Data(try take(KeychainCipher.nonceLength, "nonce"))
        let generation = try take(8, "generation").reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let header = KeychainHeader(
            version: version, scrypt: scrypt, salt: salt, cipher: cipher, nonce: nonce, generation: generation)
        return (header, at)
    }

    /// The version a file holding `entries` is written with: the oldest that can hold them.
    static func version(for entries: [StoredEntry]) -> UInt8 {
        entries.contains { $0.kind == .model } ? modelKeysVersion : 1
    }
}
