import Determinism
import FlyingFox
import FlyingSocks
import Foundation
import HTTPServing
import MoltbookSandbox
import Synchronization

/// Serves a `SandboxModel` over HTTP/1.1 on loopback, with keep-alive, injected delays and dropped connections.
public final class SandboxServer: Sendable {
    /// Errors starting the server.
    public enum StartError: Error, CustomStringConvertible {
        /// The host is not a loopback address; the sandbox never listens on other interfaces.
        case notLoopback(String)
        case alreadyStarted
        case noListeningAddress

        public var description: String {
            switch self {
            case .notLoopback(let host): "refusing to listen on \(host): the sandbox binds to loopback only"
            case .alreadyStarted: "the sandbox server is already running"
            case .noListeningAddress: "the sandbox server did not report a listening address"
            }
        }
    }

    private struct Running: Sendable {
        var server: HTTPServer
        var task: Task<Void, any Error>
    }

    public let model: SandboxModel
    public let clock: SettableClock
    private let host: String
    private let port: UInt16
    private let logger: (@Sendable (String) -> Void)?
    /// The OpenAI-compatible fake served under `/openai/`, or nil when not enabled.
    public let openAI: OpenAIStub?
    /// `moltbook-sandbox --request-log`: one JSON line per request the model answers, or nil.
    private let requestLog: SandboxRequestLog?
    private let running = Mutex<Running?>(nil)

    /// - Parameters:
    ///   - log: called with one line per request (method, path, status); never sees headers.
    ///   - openAI: also serve this OpenAI-compatible fake under `/openai/` (`moltbook-sandbox --openai`).
    ///   - requestLog: also record each request the model answers there (`SandboxRequestLog`).
    public init(
        model: SandboxModel, clock: SettableClock = SettableClock(), host: String = "127.0.0.1", port: UInt16 = 0,
        log: (@Sendable (String) -> Void)? = nil, openAI: OpenAIStub? = nil, requestLog: SandboxRequestLog? = nil
    ) {
        self.openAI = openAI
        self.requestLog = requestLog
        self.model = model
        self.clock = clock
        self.host = host
        self.port = port
        self.logger = log
    }

    /// Starts listening; returns the API base URL (`http://127.0.0.1:PORT/api/v1`) once the socket accepts.
    public func start() async throws -> URL {
        let address: any SocketAddress
        switch host {
        case "127.0.0.1", "localhost": address = try sockaddr_in.inet(ip4: "127.0.0.1", port: port)
        case "::1", "[::1]": address = try sockaddr_in6.inet6(ip6: "::1", port: port)
        default:
            guard host.hasPrefix("127."), host.split(separator: ".").count == 4 else {
                throw StartError.notLoopback(host)
            }
            address = try sockaddr_in.inet(ip4: host, port: port)
        }
        let handler = SandboxHTTPHandler(
            model: model, clock: clock, log: logger, openAI: openAI, requestLog: requestLog)
        let server = HTTPServer(
            config: HTTPServer.Configuration(
                address: address, timeout: 120, pool: SharedSocketPool.process,
                logger: .disabled),
            handler: handler)
        // On the listener threads, not the cooperative pool (ListenerExecutor says why).
        let task = Task(executorPreference: ListenerExecutor.shared) { try await server.run() }
        let claimed = running.withLock { current -> Bool in
            guard current == nil else { return false }
            current = Running(server: server, task: task)
            return true
        }
        guard claimed else {
            task.cancel()
            throw StartError.alreadyStarted
        }
        do {
            // Generous: binding is immediate, but the listener's task may wait for a thread on a
            // loaded machine (10 s ran out once beside a build and another test process).
            try await server.waitUntilListening(timeout: 60)
        } catch {
            await stop()
            throw error
        }
        guard let listening = await server.listeningAddress else {
            await stop()
            throw StartError.noListeningAddress
        }
        let authority: String
        switch listening {
        case .ip4(let ip, let port): authority = "\(ip):\(port)"
        case .ip6(let ip, let port): authority = "[\(ip)]:\(port)"
        case .unix: throw StartError.noListeningAddress
        }
        guard let url = URL(string: "http://\(authority)/api/v1") else { throw StartError.noListeningAddress }
        return url
    }

    /// Stops listening and closes open connections.
    public func stop() async {
        guard
            let current = running.withLock({ value -> Running? in
                defer { value = nil }
                return value
            })
        else { return }
        await current.server.stop(timeout: 0.2)
        current.task.cancel()
        _ = await current.task.result
    }
}
