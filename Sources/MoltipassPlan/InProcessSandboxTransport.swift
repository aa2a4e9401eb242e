import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassEngine
import Synchronization

/// An `HTTPTransport` that hands requests straight to a `SandboxModel`: no sockets, virtual time.
///
/// Used by `plan` (a simulated Moltbook on a virtual clock) and by engine tests that simulate
/// days in milliseconds. Faults map to what libcurl would report: a delay longer than the
/// request's timeout is a timeout after sending; a dropped connection is a lost connection
/// after sending.
public final class InProcessSandboxTransport: HTTPTransport, Sendable {
    public let model: SandboxModel
    private let clock: @Sendable () -> Date
    private let defaultTimeout: Duration
    private let sent = Mutex(0)

    /// Whether successful answers come as JSON trees (`HTTPResponse.parsedBody`) rather than
    /// bytes the client parses back: the same values (a test compares whole plans both ways),
    /// without a serialisation and a parse per request.
    public let handsOverTrees: Bool

    public init(
        model: SandboxModel, defaultTimeout: Duration = .seconds(30), handsOverTrees: Bool = true,
        clock: @escaping @Sendable () -> Date
    ) {
        self.model = model
        self.handsOverTrees = handsOverTrees
        self.clock = clock
        self.defaultTimeout = defaultTimeout
    }

    /// Requests handed to the model so far.
    public var requestCount: Int { sent.withLock { $0 } }

    /// The path with percent-escapes decoded (the client's paths rarely have any: skip the work then).
    static func decodedPath(_ components: URLComponents) -> String {
        let encoded = components.percentEncodedPath
        guard encoded.utf8.contains(UInt8(ascii: "%")) else { return encoded }
        return encoded.removingPercentEncoding ?? components.path
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) else {
            throw TransportError.disallowedURL(reason: "not a URL")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let sandboxRequest = SandboxRequest(
            method: request.method, path: Self.decodedPath(components),
            query: query, headers: request.headers, body: request.body ?? Data())
        sent.withLock { $0 += 1 }
        let reply = model.handle(sandboxRequest, now: clock(), handingOverTree: handsOverTrees)
        if let delay = reply.delay, delay > (request.timeout ?? defaultTimeout) {
            throw TransportError.timedOut(requestSent: true)
        }
        if reply.dropConnection {
            throw TransportError.connectionLost(
                requestSent: true, detail: "the simulated server dropped the connection")
        }
        return reply.response
    }
}
