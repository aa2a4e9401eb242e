import Foundation

/// A decoded value with what the response said besides it.
public struct MoltbookResponse<Value: Sendable>: Sendable {
    public var value: Value
    public var status: Int
    /// Rate-limit signals of the response (`X-RateLimit-*` on every response).
    public var rateLimit: RateLimitHint
    /// The server's `message`, when any.
    public var message: String?
    /// A verification challenge anywhere in the answer (`VerificationChallenge.find` with no resource key). Moltbook
    /// challenges posts, comments and submolts; a server may challenge any write (a vote, a follow, a direct
    /// message), and a challenge left unanswered counts toward a suspension all the same (issue 34).
    public var challenge: VerificationChallenge?

    public init(
        value: Value, status: Int, rateLimit: RateLimitHint, message: String? = nil,
        challenge: VerificationChallenge? = nil
    ) {
        self.value = value
        self.status = status
        self.rateLimit = rateLimit
        self.message = message
        self.challenge = challenge
    }

    public func map<T: Sendable>(_ transform: (Value) throws -> T) rethrows -> MoltbookResponse<T> {
        MoltbookResponse<T>(
            value: try transform(value), status: status, rateLimit: rateLimit, message: message, challenge: challenge)
    }
}
