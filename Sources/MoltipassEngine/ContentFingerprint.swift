import Crypto
import Foundation
import MoltbookAPI
import Recipes
import Storage

/// What the duplicate guard knows of a text: an exact fingerprint of its normalised form
/// (`ContentText`: case, white space, punctuation and markup dropped) and a near-duplicate
/// sketch: the 64 smallest hashes of its word 3-shingles (a bottom-k sketch). Two sketches
/// estimate the Jaccard similarity of the two shingle sets — exactly, for texts of up to 66
/// words. A text is a near-duplicate of another at `nearDuplicateSimilarity` or more.
///
/// Measured (`ContentFingerprintTests`): among 1,200 generated texts of 8–40 random words
/// (~720,000 pairs), no pair reaches the threshold (false-positive rate 0 in that sample);
/// a text of 60–100 words with one word inserted is found (a short text changed by a word
/// differs in too large a share of its shingles: the threshold keeps to near-identical texts).
/// The demo's hourly bulletin (the same text but for the hour) stays below it (~0.77).
struct ContentFingerprint: Sendable, Equatable {
    /// Words of the normalised text.
    let tokens: [String]
    let exact: String
    /// A post's body alone (its content and link, without the title), when it has at least
    /// `minimumTokensForBody` words: the same body under another title is the same content
    /// (issue 33, observation 9: `Reef log {{ date }} #1` posted the day before's text again under
    /// the day's title). Nil for comments, which have no title.
    private(set) var bodyExact: String?
    /// Ascending; empty for texts shorter than `minimumTokensForSketch`.
    let sketch: [UInt32]

    static let minimumTokensForSketch = 8
    /// Words a post's body needs to count as content of its own (`bodyExact`); a shorter body
    /// ("gm", "see link") says too little to be a repeat whatever its title.
    static let minimumTokensForBody = 3

    /// The fingerprints that name this text: the whole, then (for a post) its body.
    var exacts: [String] { [exact] + (bodyExact.map { [$0] } ?? []) }
    static let sketchSize = 64
    /// The estimated share of shingles two texts have in common (of all either has) from which
    /// the later one is a near-duplicate.
    static let nearDuplicateSimilarity = 0.9
    /// How many of the smallest hashes of a sketch of `count` hashes an index must hold so that
    /// every near-duplicate of its text shares one of them with it (7 for a full sketch, 2 for
    /// a text of 9 shingles, 1 for 6).
    ///
    /// The merge in `similarity` walks the union of two sketches in ascending order, T ≤ 64
    /// steps, S of them shared; every step before the first shared hash h is one only one sketch
    /// has. If h is the i-th hash of this sketch (from 0), the i before it are such steps, so
    /// i ≤ T − S ≤ (1 − t)·T at a similarity S / T ≥ t; and S ≤ `count` gives T ≤ `count` / t.
    /// So i ≤ (1 − t)·min(64, `count` / t), and h is among the first ⌊that⌋ + 1 of this sketch,
    /// and (the same for the other) among the first of the other's: two texts at the threshold
    /// share a hash of both bands. The bounds are rounded up (a larger band only costs
    /// comparisons); `ContentFingerprintTests` checks the index against the full scan.
    static func nearDuplicateBand(count: Int) -> Int {
        let t = nearDuplicateSimilarity
        let union = min(Double(sketchSize), (Double(count) / t + 1e-9).rounded(.down))
        return Int(((1 - t) * union + 1e-9).rounded(.down)) + 1
    }

    init(text: String) {
        let tokens = ContentText.words(text)
        self.tokens = tokens
        let normalized = tokens.joined(separator: " ")
        exact = SHA256.hash(data: Data(("content-v1|" + normalized).utf8)).prefix(12).hexString
        guard tokens.count >= Self.minimumTokensForSketch else {
            sketch = []
            return
        }
        var hashes: Set<UInt32> = []
        for start in 0...(tokens.count - 3) {
            hashes.insert(
                UInt32(
                    truncatingIfNeeded: Self.mix(Self.fnv1a(tokens[start..<(start + 3)].joined(separator: " "))) >> 32))
        }
        sketch = Array(hashes.sorted().prefix(Self.sketchSize))
    }

    /// The content ledger's kind for a write that publishes text: `post`, or `comment` for
    /// comments and replies (a reply is a comment on Moltbook, and the ledger's kinds are fixed
    /// by the schema).
    static func ledgerKind(_ kind: PlannedWrite.Kind) -> String { kind == .post ? "post" : "comment" }

    /// The text a write publishes, or nil for writes that publish none (votes, follows).
    init?(_ write: PlannedWrite) {
        switch write.kind {
        case .post:
            self.init(text: [write.title, write.content, write.url].compactMap { $0 }.joined(separator: "\n"))
            let body = ContentText.words([write.content, write.url].compactMap { $0 }.joined(separator: "\n"))
            if body.count >= Self.minimumTokensForBody {
                let text = "post-body-v1|" + body.joined(separator: " ")
                bodyExact = SHA256.hash(data: Data(text.utf8)).prefix(12).hexString
            }
        case .comment, .reply:
            self.init(text: write.content ?? "")
        case .upvotePost, .downvotePost, .upvoteComment, .downvoteComment, .follow, .unfollow, .subscribe,
            .unsubscribe, .directMessage, .approveRequest:
            return nil
        }
    }

    /// The sketch as stored: 8 hex digits a hash.
    var signature: String { sketch.map { String(format: "%08x", $0) }.joined() }

    /// A stored sketch, or nil when it is not one.
    static func sketch(from signature: String) -> [UInt32]? {
        // Byte by byte: the ledger's signatures are read on every pass that plans content, and
        // `String.index(_:offsetBy:)` per hash was most of a month's plan (issue 20, bench).
        let bytes = Array(signature.utf8)
        guard bytes.count % 8 == 0 else { return nil }
        var result: [UInt32] = []
        result.reserveCapacity(bytes.count / 8)
        var value: UInt32 = 0
        for (offset, byte) in bytes.enumerated() {
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value << 4 | digit
            if offset % 8 == 7 {
                result.append(value)
                value = 0
            }
        }
        return result
    }

    /// The estimated Jaccard similarity of the shingle sets two sketches come from: among the
    /// smallest `sketchSize` hashes of their union, the share both have.
    static func similarity(_ a: [UInt32], _ b: [UInt32]) -> Double {
        guard !a.isEmpty, !b.isEmpty else { return 0 }
        // Both ascending and distinct: one merge over the smallest `sketchSize` of the union.
        var (i, j, taken, shared) = (0, 0, 0, 0)
        while taken < sketchSize, i < a.count || j < b.count {
            if j == b.count || (i < a.count && a[i] < b[j]) {
                i += 1
            } else if i == a.count || b[j] < a[i] {
                j += 1
            } else {
                shared += 1
                i += 1
                j += 1
            }
            taken += 1
        }
        return Double(shared) / Double(taken)
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

    /// The ledger record of this text, sent by `account` at `now` for journal entry `key`.
    /// The ledger's records of this text: the whole (with its sketch), and a post's body alone.
    func records(account: String, kind: String, at now: Date, key: String?, excerpt: String) -> [ContentRecord] {
        exacts.enumerated().map { index, fingerprint in
            ContentRecord(
                account: account, kind: kind, fingerprint: fingerprint, signature: index == 0 ? signature : "",
                recordedAt: now, journalKey: key, excerpt: String(excerpt.prefix(80)))
        }
    }
}
