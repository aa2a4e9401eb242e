import Foundation
import MoltbookAPI
import Synchronization

/// An in-memory transport that answers with canned responses and records what it was sent.
///
/// For decoding tests only, where feeding exact bytes is the point; everything that talks to
/// a server goes through `CurlTransport` and the sandbox.
public final class StubTransport: HTTPTransport, Sendable {
    private let responder: @Sendable (HTTPRequest) throws -> HTTPResponse
    private let log = Mutex<[HTTPRequest]>([])

    public init(_ responder: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) {
        self.responder = responder
    }

    /// Always answers with `status`, `headers` and `body`.
    public convenience init(status: Int, headers: HTTPHeaders = ["Content-Type": "application/json"], body: Data) {
        self.init { _ in HTTPResponse(status: status, headers: headers, body: body) }
    }

    public var requests: [HTTPRequest] { log.withLock { $0 } }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        log.withLock { $0.append(request) }
        return try responder(request)
    }
}
