import Crypto
import Foundation
import MoltbookAPI
import Recipes
import Storage

/// What the duplicate guard knows of a text: its normalised form, an exact fingerprint of it,
/// and a near-duplicate signature (a 64-bit SimHash over word 3-shingles).
///
/// Normalising drops what does not make a text different to a reader or to a fingerprinting
/// server: case, white space, punctuation and markup (`*`, `_`, `#`, backticks, brackets, …);
/// letters and digits of every script stay. The guard compares exact fingerprints; the
/// signature is stored with each record for the near-duplicate comparison that builds on it.
struct ContentFingerprint: Sendable, Equatable {
    /// Words of the normalised text.
    let tokens: [String]
    let exact: String
    let signature: Int64

    /// Texts shorter than this have no signature (a few words give too few shingles to tell
    /// two texts apart).
    static let minimumTokensForSignature = 8

    init(text: String) {
        let tokens = ContentText.words(text)
        self.tokens = tokens
        let normalized = tokens.joined(separator: " ")
        exact = SHA256.hash(data: Data(("content-v1|" + normalized).utf8)).prefix(12).hexString
        signature = tokens.count >= Self.minimumTokensForSignature ? Self.simHash(tokens) : 0
    }

    /// The text a write publishes, or nil for writes that publish none (votes, follows).
    init?(_ write: PlannedWrite) {
        switch write.kind {
        case .post:
            self.init(text: [write.title, write.content, write.url].compactMap { $0 }.joined(separator: "\n"))
        case .comment:
            self.init(text: write.content ?? "")
        default:
            return nil
        }
    }

    /// SimHash over word 3-shingles: each shingle's 64-bit hash votes on every bit.
    static func simHash(_ tokens: [String]) -> Int64 {
        var votes = [Int](repeating: 0, count: 64)
        for start in 0...(tokens.count - 3) {
            let hash = mix(fnv1a(tokens[start..<(start + 3)].joined(separator: " ")))
            for bit in 0..<64 { votes[bit] += (hash >> UInt64(bit)) & 1 == 1 ? 1 : -1 }
        }
        var result: UInt64 = 0
        for bit in 0..<64 where votes[bit] > 0 { result |= 1 << UInt64(bit) }
        return Int64(bitPattern: result)
    }

    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    /// SplitMix64's finaliser: spreads FNV's weak low bits over the word.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// The number of bits in which two signatures differ.
    static func distance(_ a: Int64, _ b: Int64) -> Int {
        (UInt64(bitPattern: a) ^ UInt64(bitPattern: b)).nonzeroBitCount
    }

    /// The ledger record of this text, sent by `account` at `now` for journal entry `key`.
    func record(account: String, kind: String, at now: Date, key: String?, excerpt: String) -> ContentRecord {
        ContentRecord(
            account: account, kind: kind, fingerprint: exact, signature: signature, recordedAt: now, journalKey: key,
            excerpt: String(excerpt.prefix(80)))
    }
}
