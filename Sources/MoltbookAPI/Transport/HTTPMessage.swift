import Foundation

/// HTTP methods the Moltbook API uses.
public enum HTTPMethod: String, Sendable, Equatable, CaseIterable {
    case get = "GET"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case delete = "DELETE"

    /// Whether Moltbook counts the method against the write budget (30/min) rather than reads (60/min).
    public var isWrite: Bool { self != .get }
}

/// A request as handed to an `HTTPTransport`.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    public var url: URL
    public var headers: HTTPHeaders
    public var body: Data?
    /// Total time allowed for the exchange; nil means the transport's default.
    public var timeout: Duration?

    public init(method: HTTPMethod, url: URL, headers: HTTPHeaders = [:], body: Data? = nil, timeout: Duration? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// A complete response: status, headers in received order, and the whole body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data

    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
