import Determinism

extension SeededRandom {
    /// The alphabets of the sandbox's API keys, claim tokens and verification codes.
    static let urlSafe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    static let hexDigits = "0123456789abcdef"
    static let upperAlnum = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
}
