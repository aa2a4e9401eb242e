import Foundation

/// A decoded value with what the response said besides it.
public struct MoltbookResponse<Value: Sendable>: Sendable {
    public var value: Value
    public var status: Int
    /// Rate-limit signals of the response (`X-RateLimit-*` on every response).
    public var rateLimit: RateLimitHint
    /// The server's `message`, when any.
    public var message: String?

    public func map<T: Sendable>(_ transform: (Value) throws -> T) rethrows -> MoltbookResponse<T> {
        MoltbookResponse<T>(value: try transform(value), status: status, rateLimit: rateLimit, message: message)
    }
}
