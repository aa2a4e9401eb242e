import Foundation
import MoltbookAPI

/// One HTTP request as the sandbox model sees it: already read off the wire, body complete.
public struct SandboxRequest: Sendable {
    public var method: HTTPMethod
    /// The full path as received, e.g. `/api/v1/posts/ID/upvote` or `/_sandbox/counters`.
    public var path: String
    public var query: [String: String]
    public var headers: HTTPHeaders
    public var body: Data

    public init(
        method: HTTPMethod,
        path: String,
        query: [String: String] = [:],
        headers: HTTPHeaders = [:],
        body: Data = Data()
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }
}

/// The model's answer plus instructions for the HTTP front (injected latency, dropped connection).
public struct SandboxReply: Sendable {
    public var response: HTTPResponse
    /// The front waits this long before answering (fault `delay`).
    public var delay: Duration?
    /// The front sends the status line and headers, then closes the connection mid-body.
    public var dropConnection: Bool

    public init(response: HTTPResponse, delay: Duration? = nil, dropConnection: Bool = false) {
        self.response = response
        self.delay = delay
        self.dropConnection = dropConnection
    }
}
