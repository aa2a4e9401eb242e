import Foundation

/// Why an account is not acting.
public enum PauseKind: String, Sendable, Codable, CaseIterable {
    /// Verification challenges failed (the last-ten rule is close): stop writing content.
    case challengeFailed = "challenge_failed"
    /// Moltbook suspended the account.
    case suspended
    /// Authentication failures tripped the breaker: a person must fix the key.
    case authBreaker = "auth_breaker"
    /// The server refused the key itself (`GET /agents/me` answered "invalid key"): nothing is
    /// sent until the pause ends and one read finds the key working, or a person replaces it.
    case keyRefused = "key_refused"
    /// Paused by an operator.
    case manual
}

/// A pause on one account: nothing is sent for it before `until` (forever when nil).
public struct AccountPause: Sendable, Equatable {
    public var account: String
    public var kind: PauseKind
    public var until: Date?
    public var reason: String
    public var createdAt: Date

    public init(account: String, kind: PauseKind, until: Date?, reason: String, createdAt: Date) {
        self.account = account
        self.kind = kind
        self.until = until
        self.reason = reason
        self.createdAt = createdAt
    }

    /// Whether the pause still applies at `now`.
    public func isActive(at now: Date) -> Bool { until.map { $0 > now } ?? true }
}
