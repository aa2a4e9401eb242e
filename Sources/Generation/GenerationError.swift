import Foundation
import MoltbookAPI

/// Why a generator produced no text, in plain words. Descriptions name at most the generator's host and a
/// short, redacted excerpt of what the server said; never a key.
public enum GenerationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The base URL may not be contacted (plain http to a non-loopback host, credentials in it, another scheme).
    case insecureURL(reason: String)
    /// Nothing answered at the host (connection refused, DNS, TLS).
    case unreachable(host: String, detail: String)
    /// No complete answer within the timeout.
    case timedOut(host: String, after: Duration)
    /// The server refused the key (401 or 403).
    case unauthorized(host: String, status: Int, message: String)
    /// The server answered 429; `retryAfterSeconds` from Retry-After when it sent one.
    case rateLimited(host: String, retryAfterSeconds: Int?)
    /// Any other non-2xx answer, with the server's short message.
    case httpStatus(host: String, status: Int, message: String)
    /// A 3xx answer: never followed (the key would go with it); names only the target's host.
    case redirectRefused(host: String, targetHost: String?)
    /// The answer was not the expected JSON.
    case malformedAnswer(host: String, detail: String)
    /// The answer was larger than the cap.
    case oversizedAnswer(host: String, limit: Int)
    /// The answer held no text (empty or missing content).
    case noText(host: String)
    /// The connection broke or the transfer failed otherwise.
    case transferFailed(host: String, detail: String)

    /// Whether the same request may succeed later (server trouble, limits, time), as opposed to a
    /// configuration or answer-shape problem that will repeat.
    public var isWorthRetrying: Bool {
        switch self {
        case .unreachable, .timedOut, .rateLimited, .transferFailed: true
        case .httpStatus(_, let status, _): status >= 500 || status == 408
        case .insecureURL, .unauthorized, .redirectRefused, .malformedAnswer, .oversizedAnswer, .noText: false
        }
    }

    public var description: String {
        switch self {
        case .insecureURL(let reason):
            "the generator URL is not allowed: \(reason)"
        case .unreachable(let host, let detail):
            "the generator at \(host) could not be reached: \(detail)"
        case .timedOut(let host, let after):
            "the generator at \(host) did not answer within \(Self.seconds(after))"
        case .unauthorized(let host, let status, let message):
            "the generator at \(host) refused the key (HTTP \(status))" + Self.suffix(message)
        case .rateLimited(let host, let retryAfter):
            "the generator at \(host) is rate limiting (HTTP 429)"
                + (retryAfter.map { "; retry after \($0) s" } ?? "")
        case .httpStatus(let host, let status, let message):
            "the generator at \(host) answered HTTP \(status)" + Self.suffix(message)
        case .redirectRefused(let host, let target):
            "the generator at \(host) redirected "
                + (target.map { "to \($0)" } ?? "elsewhere") + "; redirects are not followed"
        case .malformedAnswer(let host, let detail):
            "the generator at \(host) returned a malformed answer: \(detail)"
        case .oversizedAnswer(let host, let limit):
            "the generator at \(host) returned more than \(limit) bytes"
        case .noText(let host):
            "the generator at \(host) returned no text"
        case .transferFailed(let host, let detail):
            "the exchange with the generator at \(host) failed: \(detail)"
        }
    }

    private static func suffix(_ message: String) -> String {
        message.isEmpty ? "" : ": \(message)"
    }

    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = attoseconds / 1_000_000_000_000_000
        return milliseconds == 0 ? "\(seconds) s" : "\(seconds).\(String(format: "%03d", milliseconds)) s"
    }
}
