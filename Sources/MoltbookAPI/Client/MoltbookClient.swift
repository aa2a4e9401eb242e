import Foundation
import Logging

/// The Moltbook API client: every endpoint a runner needs, over any `HTTPTransport`.
///
/// Host pinning: requests go only to `baseURL`'s host, which must be `www.moltbook.com`
/// (HTTPS) or, when explicitly allowed, a loopback sandbox. The key goes only into the
/// `Authorization` header of such a request. A redirect is refused, never followed.
public struct MoltbookClient: Sendable {
    /// `https://www.moltbook.com/api/v1`: always the `www` host (the apex redirects and
    /// redirects drop the `Authorization` header).
    public static let defaultBaseURL = URL(string: "https://www.moltbook.com/api/v1")!
    /// The only remote host the key may be sent to.
    public static let moltbookHost = "www.moltbook.com"

    public let baseURL: URL
    public let apiKey: APIKey?
    let transport: any HTTPTransport
    let logger: Logger
    /// Told of every request sent (metrics: `run --listen`); nil for none. The client only
    /// reports; whoever fills it decides what to count.
    public let observer: RequestObserver?
    /// Asked before every request leaves (`with(gate:)`); nil: every request goes.
    public let gate: RequestGate?

    /// - Parameters:
    ///   - allowLoopback: permits a `http://127.0.0.1…`/`localhost` base URL (the sandbox).
    ///   - observer: told of every request (method, route template, status, duration, hints).
    public init(
        baseURL: URL = MoltbookClient.defaultBaseURL, apiKey: APIKey?, transport: any HTTPTransport,
        allowLoopback: Bool = false, logger: Logger = Logger(label: "moltipass.api"), observer: RequestObserver? = nil
    ) throws(APIError) {
        try Self.validate(baseURL: baseURL, allowLoopback: allowLoopback)
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.transport = transport
        self.logger = logger
        self.observer = observer
        self.gate = nil
    }

    /// A copy of this client that sends `apiKey` instead.
    public func with(apiKey: APIKey?) -> MoltbookClient {
        MoltbookClient(
            unchecked: baseURL, apiKey: apiKey, transport: transport, logger: logger, observer: observer, gate: gate)
    }

    /// A copy of this client that asks `gate` before each request: the engine's lease fence
    /// (a runner sends nothing for an agent whose lease it can no longer vouch for).
    public func with(gate: RequestGate?) -> MoltbookClient {
        MoltbookClient(
            unchecked: baseURL, apiKey: apiKey, transport: transport, logger: logger, observer: observer, gate: gate)
    }

    private init(
        unchecked baseURL: URL, apiKey: APIKey?, transport: any HTTPTransport, logger: Logger,
        observer: RequestObserver?, gate: RequestGate?
    ) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.transport = transport
        self.logger = logger
        self.observer = observer
        self.gate = gate
    }

    /// Refuses any base URL other than the Moltbook host over HTTPS, or loopback when allowed.
    public static func validate(baseURL: URL, allowLoopback: Bool) throws(APIError) {
        func refuse(_ why: String) -> APIError {
            APIError(
                code: .invalidRequest, message: "base URL \(baseURL.absoluteString) refused: \(why)",
                endpoint: "configuration")
        }
        guard let host = baseURL.host?.lowercased(), let scheme = baseURL.scheme?.lowercased() else {
            throw refuse("not an absolute URL")
        }
        if baseURL.user != nil || baseURL.password != nil || baseURL.query != nil {
            throw refuse("no credentials or query allowed")
        }
        if URLPolicy.isLoopback(host: host) {
            guard allowLoopback else { throw refuse("loopback is only allowed when pointing at a sandbox explicitly") }
            guard scheme == "http" || scheme == "https" else { throw refuse("scheme must be http or https") }
            return
        }
        guard scheme == "https" else { throw refuse("the Moltbook API is only reached over https") }
        guard host == moltbookHost else {
            if host == "moltbook.com" {
                throw refuse("use https://www.moltbook.com/api/v1 — the apex host redirects and drops the key")
            }
            throw refuse("the key is only ever sent to \(moltbookHost)")
        }
    }
}
