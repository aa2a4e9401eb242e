import Foundation

/// Where a verification challenge stands.
public enum ChallengeStatus: String, Sendable, Codable, CaseIterable {
    case open
    case solved
    case failed
    case expired
}

/// A verification challenge Moltbook issued for a post, comment or submolt, kept until it is
/// answered or expires (and afterwards, so the last-ten-failures rule can be watched).
public struct StoredChallenge: Sendable, Equatable {
    /// `moltbook_verify_…`; unique.
    public var code: String
    public var account: String
    public var text: String
    public var expiresAt: Date?
    /// `post`, `comment` or `submolt`.
    public var contentType: String
    public var contentID: String?
    /// The journal entry whose write was challenged.
    public var journalKey: String?
    public var attempts: Int
    public var status: ChallengeStatus
    public var createdAt: Date
    public var updatedAt: Date
    /// The route the answer goes to, relative to the API base (`verify` on moltbook.com, nil
    /// meaning the same; `verification/submit` on servers that say so by the challenge's shape).
    public var answerPath: String?
    /// The challenge's own instructions as the server sent them (`instructions`): what they say of
    /// the answer's form (two decimals, a whole number) is how the answer is written (issue 33,
    /// observation 6). Nil for a challenge without, or stored before they were kept (v6).
    public var instructions: String?

    public init(
        code: String, account: String, text: String, expiresAt: Date?, contentType: String, contentID: String?,
        journalKey: String? = nil, attempts: Int = 0, status: ChallengeStatus = .open, createdAt: Date,
        updatedAt: Date? = nil, answerPath: String? = nil, instructions: String? = nil
    ) {
        self.answerPath = answerPath
        self.instructions = instructions
        self.code = code
        self.account = account
        self.text = text
        self.expiresAt = expiresAt
        self.contentType = contentType
        self.contentID = contentID
        self.journalKey = journalKey
        self.attempts = attempts
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
    }
}
