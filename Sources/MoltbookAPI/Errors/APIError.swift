import Foundation

/// A failed Moltbook call: what kind of failure, what to do about it, and everything the
/// server said that a caller may act on (rate-limit hints, suspension time).
///
/// `description` never contains the API key: server text is passed through `Redactor`.
public struct APIError: Error, Sendable, CustomStringConvertible {
    /// The failure taxonomy. Callers switch on this, never on message text.
    public enum Code: String, Sendable, Equatable, CaseIterable {
        /// 401 "Invalid API key": the key is wrong or was rotated.
        case invalidKey
        /// 401 "Authentication required": the header did not arrive (or the early-2026 401 wave).
        case authenticationRequired
        /// The agent has not been claimed by its human yet.
        case notClaimed
        /// The account is suspended (`suspensionRemaining` when the text says how long).
        case suspended
        /// 403 for any other reason (including CDN HTML pages).
        case forbidden
        case notFound
        case methodNotAllowed
        /// 409: name taken, verification already answered.
        case conflict
        /// 410: verification challenge expired.
        case expired
        /// 400 and other validation failures, and `success:false` on a 2xx.
        case badRequest
        /// 413, or a body the client refused to send because it is too large.
        case payloadTooLarge
        /// 429: see `rateLimit`.
        case rateLimited
        /// 5xx.
        case serverError
        /// No HTTP response (see `transport`).
        case transport
        /// A 2xx whose body is not the JSON expected.
        case undecodable
        /// `success: false` on a 2xx that says nothing the client recognises (no challenge, no
        /// known error): the request may have been applied, so the outcome is unknown.
        case unrecognized
        /// The server answered with a redirect; it is never followed with the key.
        case redirectRefused
        /// The request was refused before sending (bad argument, disallowed base URL).
        case invalidRequest
    }

    public var code: Code
    /// What went wrong and, where known, how to fix it.
    public var message: String
    /// `METHOD /path` of the call.
    public var endpoint: String
    public var status: Int?
    /// The server's `error` field.
    public var serverError: String?
    /// The server's `hint` field.
    public var serverHint: String?
    /// Rate-limit signals of the response (also present on non-429 errors when sent).
    public var rateLimit: RateLimitHint
    /// How long a suspension lasts from the moment of the response, when the text says.
    public var suspensionRemaining: Double?
    public var transport: TransportError?
    /// A short, redacted excerpt of an unexpected body.
    public var bodyExcerpt: String?
    /// The route is refused because the agent is too new for it (moltbook.com: "Direct messages
    /// are not available for agents younger than 24 hours"). Comes with `.forbidden`: the key,
    /// the claim and the account are fine, the route opens with time.
    public var agentTooNew = false

    public init(
        code: Code, message: String, endpoint: String, status: Int? = nil, serverError: String? = nil,
        serverHint: String? = nil, rateLimit: RateLimitHint = RateLimitHint(), suspensionRemaining: Double? = nil,
        transport: TransportError? = nil, bodyExcerpt: String? = nil
    ) {
        self.code = code
        self.message = Redactor.redact(message)
        self.endpoint = endpoint
        self.status = status
        self.serverError = serverError.map(Redactor.redact)
        self.serverHint = serverHint.map(Redactor.redact)
        self.rateLimit = rateLimit
        self.suspensionRemaining = suspensionRemaining
        self.transport = transport
        self.bodyExcerpt = bodyExcerpt.map { Redactor.excerpt($0) }
    }

    /// True when the server may have applied the request although no success came back
    /// (timeout or broken connection after sending, 5xx). Writes in this state are reconciled
    /// by reading back, never re-sent blindly.
    public var outcomeUnknown: Bool {
        switch code {
        case .transport: transport?.requestMayHaveBeenProcessed ?? true
        case .serverError, .undecodable, .unrecognized: true
        default: false
        }
    }

    public var description: String {
        var text = "\(endpoint): \(message)"
        if let status { text += " (HTTP \(status))" }
        if let serverHint, !message.contains(serverHint) { text += " — server hint: \(serverHint)" }
        if let bodyExcerpt { text += " — body: \(bodyExcerpt)" }
        return text
    }
}
