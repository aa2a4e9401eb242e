import FlyingFox
import FlyingSocks
import Foundation
import HTTPServing
import Synchronization

/// What the probe listener serves, asked at each request.
public protocol ProbeSource: Sendable {
    /// The exposition in the Prometheus text format. `scrapeTimeout`: how long the scraper waits
    /// for it (Prometheus says so in `X-Prometheus-Scrape-Timeout-Seconds`), when it says.
    func metrics(scrapeTimeout: Duration?) async -> String
    /// `/healthz`: whether the process's run loop is alive.
    func liveness() async -> ProbeStatus
    /// `/readyz`: whether the runner can do its work.
    func readiness() async -> ProbeStatus
}

/// A probe's answer: 200 `ok`, or 503 with one line saying why not.
public struct ProbeStatus: Sendable, Equatable {
    public var ok: Bool
    public var reason: String

    public static let healthy = ProbeStatus(ok: true, reason: "ok")

    public static func failing(_ reason: String) -> ProbeStatus { ProbeStatus(ok: false, reason: reason) }

    public init(ok: Bool, reason: String) {
        self.ok = ok
        self.reason = reason
    }

    /// The body: the reason on one line (line breaks and other control characters as spaces).
    var line: String {
        String(
            String.UnicodeScalarView(reason.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 })
        )
            + "\n"
    }
}

/// The daemon's HTTP listener (`run --listen`): `GET /metrics` (the Prometheus text format,
/// version 0.0.4), `/healthz` and `/readyz` (200 `ok`, or 503 and the reason in one line of plain
/// text). `HEAD` answers the same without the body; other methods 405, other paths 404. It serves
/// only what its source gives: no request reaches the state or the agents, and nothing it
/// answers holds a key.
///
/// A listener that stops on its own (FlyingFox ends its accept loop at the first `accept` error
/// that is not "would block": out of descriptors, a connection aborted before it was taken) is
/// reported to `onStop` and listens again on the same address, once a second until it can: a
/// daemon whose probes went deaf would be restarted by its orchestrator for nothing, and one
/// without an orchestrator would go unwatched.
public final class ProbeServer: Sendable {
    /// Where it listens (the port the system chose when asked for 0).
    public let address: ListenAddress
    private let current: Mutex<HTTPServer>
    private let stopped = Mutex(false)
    private let task: Mutex<Task<Void, Never>?>

    /// `http://ADDRESS`.
    public var url: String { "http://\(address)" }

    private init(address: ListenAddress, server: HTTPServer) {
        self.address = address
        self.current = Mutex(server)
        self.task = Mutex(nil)
    }

    /// What the listener tells its owner after it started: it stopped on its own (the reason),
    /// or it listens again after that.
    public enum Event: Sendable, Equatable {
        case stopped(url: String, reason: String)
        case listeningAgain(url: String)
    }

    /// Binds `address` and serves `source`; fails with the reason when it cannot listen (the port
    /// is taken, the address is not this machine's). `onEvent` hears of a listener that stopped on
    /// its own and of its listening again (see the type).
    public static func start(
        at address: ListenAddress, source: some ProbeSource,
        onEvent: @escaping @Sendable (Event) -> Void = { _ in }
    ) async throws(ListenError) -> ProbeServer {
        let handler = ProbeHandler(source: source)
        let (server, run) = try await listen(at: address, handler: handler)
        var bound = address
        if case .ip4(_, let port)? = await server.listeningAddress { bound.port = port }
        if case .ip6(_, let port)? = await server.listeningAddress { bound.port = port }
        let probe = ProbeServer(address: bound, server: server)
        // On the listener threads: a busy pass must not keep the probes from answering.
        let supervisor = Task(executorPreference: ListenerExecutor.shared) { [bound] in
            var ended = await run.value
            while !probe.stopped.withLock({ $0 }) {
                onEvent(.stopped(url: probe.url, reason: describeStop(ended)))
                while !probe.stopped.withLock({ $0 }) {
                    try? await Task.sleep(for: .seconds(1))
                    guard !probe.stopped.withLock({ $0 }),
                        let (again, next) = try? await listen(at: bound, handler: handler)
                    else { continue }
                    probe.current.withLock { $0 = again }
                    // A stop that came while it bound: this server is the one it must stop.
                    if probe.stopped.withLock({ $0 }) { await again.stop(timeout: 0) }
                    onEvent(.listeningAgain(url: probe.url))
                    ended = await next.value
                    break
                }
            }
        }
        probe.task.withLock { $0 = supervisor }
        return probe
    }

    /// One HTTP server listening on `address`, and the task that runs it (its value: the error
    /// that ended it, nil when it was stopped).
    private static func listen(at address: ListenAddress, handler: some HTTPHandler) async throws(ListenError)
        -> (HTTPServer, Task<(any Error)?, Never>)
    {
        let socketAddress: any SocketAddress
        do {
            socketAddress =
                switch address.family {
                case .ipv4: try sockaddr_in.inet(ip4: address.host, port: address.port)
                case .ipv6: try sockaddr_in6.inet6(ip6: address.host, port: address.port)
                }
        } catch {
            throw ListenError(address: address, reason: "not an address of this machine")
        }
        let server = HTTPServer(
            config: HTTPServer.Configuration(
                address: socketAddress, timeout: 15, pool: SharedSocketPool.process,
                logger: .disabled),
            handler: handler)
        let ended = Mutex(false)
        let task = Task(executorPreference: ListenerExecutor.shared) { () -> (any Error)? in
            defer { ended.withLock { $0 = true } }
            do {
                try await server.run()
                return nil
            } catch {
                return error
            }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while await !server.isListening {
            if ended.withLock({ $0 }) {
                throw ListenError(address: address, reason: Self.describe(await task.value))
            }
            guard ContinuousClock.now < deadline else {
                task.cancel()
                throw ListenError(address: address, reason: "the socket did not start listening within 10 s")
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return (server, task)
    }

    /// Stops listening and closes open connections.
    public func stop() async {
        stopped.withLock { $0 = true }
        await current.withLock { $0 }.stop(timeout: 0.2)
        let supervisor = task.withLock { $0 }
        supervisor?.cancel()
        _ = await supervisor?.value
    }

    /// Why a listener stopped on its own: the failing call and the system's words
    /// (`accept failed: Too many open files`).
    static func describeStop(_ error: (any Error)?) -> String {
        if case SocketError.failed(let type, _, let message)? = error {
            return "\(type.lowercased()) failed: \(message)"
        }
        return describe(error)
    }

    /// The system's words for a socket failure (`Address already in use`), never a Swift dump.
    static func describe(_ error: (any Error)?) -> String {
        switch error {
        case SocketError.failed(_, _, let message)?: message
        case SocketError.disconnected?: "its socket was closed"
        case nil: "the listener stopped"
        default: "the socket failed"
        }
    }
}

/// The listener could not start.
public struct ListenError: Error, Sendable, Equatable, CustomStringConvertible {
    public var address: ListenAddress
    public var reason: String

    public var description: String { "cannot listen on \(address): \(reason)" }
}

/// Answers the three paths.
struct ProbeHandler<Source: ProbeSource>: HTTPHandler {
    let source: Source

    static var plainText: String { "text/plain; charset=utf-8" }

    func handleRequest(_ request: FlyingFox.HTTPRequest) async throws -> FlyingFox.HTTPResponse {
        let head = request.method == .HEAD
        guard request.method == .GET || head else {
            var response = Self.text(.methodNotAllowed, "method not allowed: use GET or HEAD\n", head: false)
            response.headers[HTTPHeader("Allow")] = "GET, HEAD"
            return response
        }
        switch request.path {
        case "/metrics":
            let body = await source.metrics(scrapeTimeout: Self.scrapeTimeout(request))
            return Self.response(.ok, body, type: MetricsExport.contentType, head: head)
        case "/healthz":
            return Self.probe(await source.liveness(), head: head)
        case "/readyz":
            return Self.probe(await source.readiness(), head: head)
        default:
            return Self.text(.notFound, "not found: this listener serves /metrics, /healthz and /readyz\n", head: head)
        }
    }

    /// The scraper's timeout, from Prometheus's `X-Prometheus-Scrape-Timeout-Seconds` header
    /// (seconds, fractions allowed); nil when absent or not a positive number.
    static func scrapeTimeout(_ request: FlyingFox.HTTPRequest) -> Duration? {
        guard let text = request.headers[HTTPHeader("X-Prometheus-Scrape-Timeout-Seconds")],
            let seconds = Double(text.trimmingCharacters(in: .whitespaces)), seconds > 0, seconds.isFinite
        else { return nil }
        return .milliseconds(Int64(min(seconds, 86_400) * 1_000))
    }

    static func probe(_ status: ProbeStatus, head: Bool) -> FlyingFox.HTTPResponse {
        text(status.ok ? .ok : .serviceUnavailable, status.line, head: head)
    }

    static func text(_ code: HTTPStatusCode, _ body: String, head: Bool) -> FlyingFox.HTTPResponse {
        response(code, body, type: plainText, head: head)
    }

    /// `body` with its type; for `HEAD` the same headers (the length `GET` would send) and no body.
    static func response(_ code: HTTPStatusCode, _ body: String, type: String, head: Bool) -> FlyingFox.HTTPResponse {
        let data = Data(body.utf8)
        var headers = HTTPHeaders()
        headers[.contentType] = type
        headers[HTTPHeader("Cache-Control")] = "no-store"
        if head { headers[.contentLength] = String(data.count) }
        return FlyingFox.HTTPResponse(statusCode: code, headers: headers, body: head ? Data() : data)
    }
}
