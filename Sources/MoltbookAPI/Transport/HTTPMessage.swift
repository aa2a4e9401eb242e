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
    /// The body as a JSON value, when the transport holds it as one: the in-process sandbox
    /// (`plan`, engine tests) hands over the tree it would otherwise serialise for the client to
    /// parse back. A successful answer then has no `body` bytes; the client reads this instead.
    /// Network transports leave it nil.
    public var parsedBody: JSONValue?

    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data(), parsedBody: JSONValue? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.parsedBody = parsedBody
    }
}
