import Foundation

/// A server-given "not before" time for one limit class of one account, with where it came from.
public struct LimitHint: Sendable, Equatable {
    public var account: String
    /// The limit class (`post`, `comment`, `write` …), as the limiter names it.
    public var limitClass: String
    public var notBefore: Date
    /// Which signal set it (`retry_after_minutes`, `X-RateLimit-Reset`, `429-default` …).
    public var source: String
    public var detail: String
    public var recordedAt: Date

    public init(
        account: String, limitClass: String, notBefore: Date, source: String, detail: String = "", recordedAt: Date
    ) {
        self.account = account
        self.limitClass = limitClass
        self.notBefore = notBefore
        self.source = source
        self.detail = detail
        self.recordedAt = recordedAt
    }
}
