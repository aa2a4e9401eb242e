/// Sends one HTTP exchange. Implementations: `CurlTransport` (real network), and the
/// in-process sandbox transport used by `plan` and unit tests.
///
/// A transport never follows redirects: a 3xx comes back as a response for the caller to refuse.
/// Failures are thrown as `TransportError`.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
