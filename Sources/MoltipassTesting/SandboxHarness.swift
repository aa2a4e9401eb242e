import Determinism
import Foundation
import Logging
import MoltbookAPI
import MoltbookSandbox
import MoltbookSandboxServer

/// A sandbox served on a loopback port inside the test process, plus clients that reach it
/// through the real `CurlTransport`.
public struct SandboxHarness: Sendable {
    public let server: SandboxServer
    public let clock: SettableClock
    /// `http://127.0.0.1:PORT/api/v1`.
    public let baseURL: URL
    public let transport: CurlTransport

    public var model: SandboxModel { server.model }

    /// The sandbox's root (`http://127.0.0.1:PORT`), where `/_sandbox/…` admin routes live.
    public var rootURL: URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)!
        components.path = ""
        return components.url!
    }

    /// Starts a server for `model` on an ephemeral loopback port.
    public static func start(
        config: SandboxConfig = SandboxConfig(dialect: TestDialect.current), seed: UInt64 = 1,
        clock: SettableClock = SettableClock(),
        transport: CurlTransport.Configuration = CurlTransport.Configuration(
            totalTimeout: .seconds(10), policy: URLPolicy(allowInsecureLoopback: true))
    ) async throws -> SandboxHarness {
        let server = SandboxServer(model: SandboxModel(config: config, seed: seed), clock: clock)
        let url = try await server.start()
        return SandboxHarness(
            server: server, clock: clock, baseURL: url, transport: try CurlTransport(configuration: transport))
    }

    public func stop() async { await server.stop() }

    /// A client for `key` (or anonymous) through libcurl.
    public func client(key: APIKey? = nil, logger: Logger = Logger(label: "test")) throws -> MoltbookClient {
        try MoltbookClient(baseURL: baseURL, apiKey: key, transport: transport, allowLoopback: true, logger: logger)
    }

    /// Registers `name` over HTTP, claims it through the admin switch, and returns its key.
    public func registeredAgent(_ name: String, claimed: Bool = true) async throws -> APIKey {
        let registration = try await client().register(name: name, description: "test agent \(name)").value
        if claimed { try await admin(.post, "agents/\(name)/claim") }
        return registration.apiKey
    }

    /// Calls an admin route (`/_sandbox/<path>`) over HTTP and returns the parsed JSON body.
    @discardableResult
    public func admin(_ method: HTTPMethod, _ path: String, json: JSONValue? = nil) async throws -> JSONValue {
        let url = rootURL.appendingPathComponent("_sandbox").appendingPathComponent(path)
        var headers: HTTPHeaders = [:]
        if json != nil { headers.add(name: "Content-Type", value: "application/json") }
        let response = try await transport.send(
            HTTPRequest(
                method: method, url: url, headers: headers, body: json?.encoded() ?? (method == .get ? nil : Data())))
        guard (200...299).contains(response.status) else {
            throw HarnessError(
                "admin \(method.rawValue) \(path) answered \(response.status): "
                    + String(decoding: response.body.prefix(300), as: UTF8.self))
        }
        return (try? JSONValue.parse(response.body)) ?? .null
    }

    /// The sandbox counters, read over HTTP.
    public func counters() async throws -> JSONValue { try await admin(.get, "counters") }
}

/// A failure of the test scaffolding itself.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}
