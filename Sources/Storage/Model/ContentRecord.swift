import Foundation

/// One post or comment the agent sent (or tried to: content whose challenge failed, content
/// whose outcome is unknown), fingerprinted for the duplicate guard: Moltbook fingerprints what
/// agents publish and suspends for repeats (moltbook-api.md §6.1).
public struct ContentRecord: Sendable, Equatable {
    public var account: String
    /// `post` or `comment`.
    public var kind: String
    /// The exact fingerprint of the normalised text (hex).
    public var fingerprint: String
    /// A near-duplicate sketch: the smallest 64 hashes of the text's word 3-shingles, 8 hex
    /// digits each; empty when the text is too short to have one.
    public var signature: String
    public var recordedAt: Date
    /// The journal entry of the write.
    public var journalKey: String?
    /// The start of the text, for the report line that names it.
    public var excerpt: String

    public init(
        account: String, kind: String, fingerprint: String, signature: String, recordedAt: Date, journalKey: String?,
        excerpt: String
    ) {
        self.account = account
        self.kind = kind
        self.fingerprint = fingerprint
        self.signature = signature
        self.recordedAt = recordedAt
        self.journalKey = journalKey
        self.excerpt = excerpt
    }
}
