import MoltbookAPI

/// How an injected fault disturbs a request.
public enum FaultMode: String, Sendable, Codable, Equatable, CaseIterable {
    /// 500 with a JSON error body; the request has no effect.
    case http500
    /// 502 with a JSON error body; the request has no effect.
    case http502
    /// 503 with a JSON error body; the request has no effect.
    case http503
    /// A CloudFront-style `text/html` error page (403 unless `status` says otherwise); no effect.
    case htmlError = "html_error"
    /// The request is applied, then answered 200 with a truncated JSON body.
    case malformedJSON = "malformed_json"
    /// The request is applied and answered normally after `delay_seconds`.
    case delay
    /// The request is applied; the connection drops after the response headers.
    case drop
    /// The request is not applied; the connection drops after the response headers.
    case dropBefore = "drop_before"
    /// 301 to `location` (default: the apex host, which strips `Authorization`); no effect.
    case redirect
    /// Writes get 401 "Authentication required" while reads still work (the Feb 2026 bug).
    case authWave = "auth_wave"
    /// 429 with the generic window body and `Retry-After` (`delay_seconds`, default 60): a limit
    /// the sandbox's own counters did not reach (another client on the same key); no effect.
    case rateLimited = "rate_limited"
}

/// One injected fault: what to do, to which requests, how many times.
public struct FaultSpec: Sendable, Codable, Equatable {
    public var mode: FaultMode
    /// Only requests whose path starts with this (e.g. `/api/v1/posts`); nil matches every API path.
    public var pathPrefix: String?
    /// Only requests with this method (e.g. `POST`); nil matches any.
    public var method: String?
    /// How many matching requests the fault affects before it is used up.
    public var count: Int
    /// For `delay`: seconds to wait before answering.
    public var delaySeconds: Double?
    /// For `redirect`: the absolute URL in `Location`.
    public var location: String?
    /// For `html_error`: the status code (403 or 502 are typical).
    public var status: Int?

    public init(
        mode: FaultMode,
        pathPrefix: String? = nil,
        method: String? = nil,
        count: Int = 1,
        delaySeconds: Double? = nil,
        location: String? = nil,
        status: Int? = nil
    ) {
        self.mode = mode
        self.pathPrefix = pathPrefix
        self.method = method
        self.count = count
        self.delaySeconds = delaySeconds
        self.location = location
        self.status = status
    }

    /// Whether this fault applies to a request (`auth_wave` only ever matches writes).
    func matches(method requestMethod: HTTPMethod, path: String) -> Bool {
        guard count > 0 else { return false }
        if mode == .authWave, !requestMethod.isWrite { return false }
        if let method, method.uppercased() != requestMethod.rawValue { return false }
        if let pathPrefix, !path.hasPrefix(pathPrefix) { return false }
        return true
    }

    enum CodingKeys: String, CodingKey {
        case mode
        case pathPrefix = "path_prefix"
        case method
        case count
        case delaySeconds = "delay_seconds"
        case location
        case status
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mode = try c.decode(FaultMode.self, forKey: .mode)
        pathPrefix = try c.decodeIfPresent(String.self, forKey: .pathPrefix)
        method = try c.decodeIfPresent(String.self, forKey: .method)
        count = try c.decodeIfPresent(Int.self, forKey: .count) ?? 1
        delaySeconds = try c.decodeIfPresent(Double.self, forKey: .delaySeconds)
        location = try c.decodeIfPresent(String.self, forKey: .location)
        status = try c.decodeIfPresent(Int.self, forKey: .status)
    }
}
