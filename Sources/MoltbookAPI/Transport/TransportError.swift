/// Why an HTTP exchange produced no response.
///
/// `requestSent` says whether any byte of the request reached the socket: when it is true the
/// server may have acted on the request, and a write must be reconciled by reading back, not re-sent.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is not one this transport may contact (scheme, host or port policy).
    case disallowedURL(reason: String)
    /// The connection could not be made (DNS, refused, unreachable). Nothing was sent.
    case connectFailed(detail: String)
    /// TLS handshake or certificate verification failed. Nothing was sent.
    case tlsFailed(detail: String)
    /// The connect or total timeout elapsed.
    case timedOut(requestSent: Bool)
    /// The connection broke before a complete response arrived.
    case connectionLost(requestSent: Bool, detail: String)
    /// The response body exceeded the configured limit.
    case responseTooLarge(limit: Int)
    /// The calling task was cancelled.
    case cancelled(requestSent: Bool)
    /// Any other libcurl failure.
    case other(code: Int, detail: String, requestSent: Bool)

    /// True when the server may have received (and acted on) the request.
    public var requestMayHaveBeenProcessed: Bool {
        switch self {
        case .disallowedURL, .connectFailed, .tlsFailed: false
        case .timedOut(let sent), .connectionLost(let sent, _), .cancelled(let sent), .other(_, _, let sent): sent
        case .responseTooLarge: true
        }
    }

    public var description: String {
        switch self {
        case .disallowedURL(let reason): "refused to contact URL: \(reason)"
        case .connectFailed(let detail): "could not connect: \(detail)"
        case .tlsFailed(let detail): "TLS failed: \(detail)"
        case .timedOut(let sent): "timed out" + (sent ? " after the request was sent" : " before the request was sent")
        case .connectionLost(let sent, let detail):
            "connection lost" + (sent ? " after the request was sent" : "") + ": \(detail)"
        case .responseTooLarge(let limit): "response larger than \(limit) bytes"
        case .cancelled: "cancelled"
        case .other(let code, let detail, _): "transfer failed (curl \(code)): \(detail)"
        }
    }
}
