import Foundation
import MoltipassTesting
import Synchronization
import Testing

@testable import Telemetry

/// The listener over a real loopback socket: the three paths, their content types and status
/// codes, `HEAD`, 404 and 405, and a port already taken.
@Suite struct ProbeServerTests {
    /// A source whose answers the test sets.
    final class Source: ProbeSource {
        let state = Mutex((metrics: "", live: ProbeStatus.healthy, ready: ProbeStatus.healthy))
        /// The scrape timeouts the listener passed on, one per `/metrics` request.
        let timeouts = Mutex<[Duration?]>([])

        func metrics(scrapeTimeout: Duration?) async -> String {
            timeouts.withLock { $0.append(scrapeTimeout) }
            return state.withLock { $0.metrics }
        }
        func liveness() async -> ProbeStatus { state.withLock { $0.live } }
        func readiness() async -> ProbeStatus { state.withLock { $0.ready } }
    }

    /// Prometheus's scrape timeout header reaches the source (a scrape bounds its reading of the
    /// state by it); absent or not a positive number, the source gets none.
    @Test func passesTheScrapeTimeoutOn() async throws {
        let source = Source()
        let server = try await ProbeServer.start(
            at: ListenAddress(host: "127.0.0.1", family: .ipv4, port: 0), source: source)
        defer { Task { await server.stop() } }
        let port = server.address.port
        let header = "X-Prometheus-Scrape-Timeout-Seconds"
        for value in ["1.5", "10", "-1", "soon"] {
            let response = try await RawHTTP.request("GET", "/metrics", port: port, headers: [(header, value)])
            #expect(response.status == 200)
        }
        _ = try await RawHTTP.request("GET", "/metrics", port: port)
        #expect(source.timeouts.withLock { $0 } == [.milliseconds(1_500), .seconds(10), nil, nil, nil])
    }

    /// `/metrics` in the Prometheus text format 0.0.4; `/healthz` and `/readyz` 200 `ok`, then
    /// 503 with the reason on one line (line breaks flattened); `HEAD` the same head, no body.
    @Test func servesTheThreePaths() async throws {
        let source = Source()
        let export = MetricsExport()
        MetricsRecorder(factory: export.factory).set(MetricCatalog.leaseHeld, [.agent: "kelp"], to: 1)
        source.state.withLock { $0.metrics = export.exposition() }
        let server = try await ProbeServer.start(
            at: ListenAddress(host: "127.0.0.1", family: .ipv4, port: 0), source: source)
        defer { Task { await server.stop() } }
        #expect(server.address.port != 0)
        #expect(server.url == "http://127.0.0.1:\(server.address.port)")
        let port = server.address.port

        let metrics = try await RawHTTP.request("GET", "/metrics", port: port)
        #expect(metrics.status == 200)
        #expect(metrics.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(metrics.body.contains("moltipass_lease_held{agent=\"kelp\"} 1"))
        #expect(metrics.headers["content-length"] == String(metrics.body.utf8.count))

        let head = try await RawHTTP.request("HEAD", "/metrics", port: port)
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(head.headers["content-length"] == String(metrics.body.utf8.count))
        #expect(head.headers["content-type"] == metrics.headers["content-type"])

        for path in ["/healthz", "/readyz"] {
            let ok = try await RawHTTP.request("GET", path, port: port)
            #expect(ok.status == 200 && ok.body == "ok\n")
            #expect(ok.headers["content-type"] == "text/plain; charset=utf-8")
        }
        source.state.withLock {
            $0.live = .failing("the run loop is stuck")
            $0.ready = .failing("kelp: cannot read the key:\nwrong passphrase")
        }
        let live = try await RawHTTP.request("GET", "/healthz", port: port)
        #expect(live.status == 503 && live.body == "the run loop is stuck\n")
        let ready = try await RawHTTP.request("GET", "/readyz", port: port)
        #expect(ready.status == 503 && ready.body == "kelp: cannot read the key: wrong passphrase\n")
        let readyHead = try await RawHTTP.request("HEAD", "/readyz", port: port)
        #expect(readyHead.status == 503 && readyHead.body.isEmpty)
    }

    /// Any other path is 404; any method but GET and HEAD is 405 with `Allow: GET, HEAD`.
    @Test func otherPathsAndMethods() async throws {
        let server = try await ProbeServer.start(
            at: ListenAddress(host: "127.0.0.1", family: .ipv4, port: 0), source: Source())
        defer { Task { await server.stop() } }
        let port = server.address.port
        for path in ["/", "/metricsx", "/health", "/api/v1/agents/me", "/metrics/../readyz2"] {
            #expect(try await RawHTTP.request("GET", path, port: port).status == 404, "\(path)")
        }
        for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
            let response = try await RawHTTP.request(method, "/metrics", port: port)
            #expect(response.status == 405, "\(method)")
            #expect(response.headers["allow"] == "GET, HEAD")
        }
    }

    /// A listener whose accept loop ends on its own (here its socket shut down under it, so
    /// `accept` fails): the owner hears why, the same port listens again within seconds and
    /// answers, and a stop after that closes it for good.
    ///
    /// Its port is below Linux's ephemeral range (32768 and up): once its socket is closed the
    /// port is free, and the system would hand it to the next test that asks for port 0 (one did,
    /// and the two tests answered on each other's port).
    @Test func aListenerThatStopsListensAgain() async throws {
        let events = Mutex<[ProbeServer.Event]>([])
        var started: ProbeServer?
        for _ in 0..<50 where started == nil {
            let address = ListenAddress(host: "127.0.0.1", family: .ipv4, port: UInt16.random(in: 20_000..<32_000))
            started = try? await ProbeServer.start(at: address, source: Source()) { event in
                events.withLock { $0.append(event) }
            }
        }
        let server = try #require(started, "no free port below 32000")
        let port = server.address.port
        #expect(try await RawHTTP.request("GET", "/healthz", port: port).status == 200)
        let socket = try #require(Self.listeningSocket(port: port), "no listening descriptor for port \(port)")
        #expect(shutdown(socket, Int32(SHUT_RDWR)) == 0)
        let deadline = Date().addingTimeInterval(20)
        while events.withLock({ $0.count }) < 2, Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(
            events.withLock { $0 } == [
                .stopped(url: server.url, reason: "accept failed: Invalid argument"),
                .listeningAgain(url: server.url),
            ])
        let again = try await RawHTTP.request("GET", "/healthz", port: port)
        #expect(again.status == 200 && again.body == "ok\n")
        await server.stop()
        await #expect(throws: (any Error).self) { _ = try await RawHTTP.request("GET", "/healthz", port: port) }
        #expect(events.withLock { $0.count } == 2, "a stop is not a listener stopping on its own")
    }

    /// The descriptor of this process's listening TCP socket on `port`, from /proc/self/fd.
    static func listeningSocket(port: UInt16) -> Int32? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in names.compactMap(Int32.init) {
            var listening: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 1 else {
                continue
            }
            var address = sockaddr_in()
            var size = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &size) }
            }
            if named == 0, address.sin_family == sa_family_t(AF_INET), UInt16(bigEndian: address.sin_port) == port {
                return descriptor
            }
        }
        return nil
    }

    /// A port already taken: the error names the address and the system's reason; a stopped
    /// listener's port is free again.
    @Test func portTaken() async throws {
        let first = try await ProbeServer.start(
            at: ListenAddress(host: "127.0.0.1", family: .ipv4, port: 0), source: Source())
        let taken = first.address
        await #expect(throws: ListenError.self) {
            _ = try await ProbeServer.start(at: taken, source: Source())
        }
        do {
            _ = try await ProbeServer.start(at: taken, source: Source())
        } catch {
            #expect(error.description == "cannot listen on \(taken): Address already in use")
        }
        await first.stop()
        await #expect(throws: (any Error).self) { _ = try await RawHTTP.request("GET", "/healthz", port: taken.port) }
    }
}
