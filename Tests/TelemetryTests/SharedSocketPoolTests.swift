import FlyingSocks
import Foundation
import MoltipassTesting
import Testing

@testable import HTTPServing
@testable import Telemetry

/// The process's one socket pool: `TCP_NODELAY` on each socket before it waits, many listeners at
/// once all answering, and a stopped listener leaving the others serving.
@Suite("Shared socket pool")
struct SharedSocketPoolTests {
    /// A loopback TCP listener whose connections are made and accepted at once.
    struct Listener {
        let socket: Socket
        let port: UInt16

        init() throws {
            socket = try Socket(domain: AF_INET)
            try socket.bind(to: sockaddr_in.inet(ip4: "127.0.0.1", port: 0))
            try socket.listen()
            guard case .ip4(_, let port) = try socket.sockname() else { throw SocketError.disconnected }
            self.port = port
        }

        /// A new client connected to it, and the accepted end's descriptor.
        func connection() throws -> (client: Socket, server: Int32) {
            let client = try Socket(domain: AF_INET)
            try client.connect(to: sockaddr_in.inet(ip4: "127.0.0.1", port: port))
            return (client, try socket.accept().file.rawValue)
        }

        func close() { try? socket.close() }
    }

    static func noDelay(_ descriptor: Int32) -> Int32 {
        var value: Int32 = -1
        var length = socklen_t(MemoryLayout<Int32>.size)
        #expect(getsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &length) == 0)
        return value
    }

    /// An accepted TCP connection waited on by the pool has `TCP_NODELAY` set.
    @Test func setsNoDelayBeforeWaiting() async throws {
        let listener = try Listener()
        defer { listener.close() }
        let (client, server) = try listener.connection()
        defer { try? client.close() }
        let accepted = Socket.FileDescriptor(rawValue: server)
        defer { _ = close(server) }
        #expect(Self.noDelay(accepted.rawValue) == 0)

        let pool = SharedSocketPool.process
        try await pool.prepare()
        // A fresh connection is writable at once: the wait returns.
        try await pool.suspendSocket(Socket(file: accepted), untilReadyFor: .write)
        #expect(Self.noDelay(accepted.rawValue) != 0)
    }

    /// A socket closed while a task waits on it, and its number given to another socket: the old
    /// wait ends as disconnected (it must not wake for, and read, the other socket's bytes); the
    /// new one wakes when its bytes come.
    ///
    /// The number is one far above those the process hands out (the lowest free one each time),
    /// placed with `dup2`: a low number closed here went to whichever socket was made next, in
    /// this test (its own second client) or in another running beside it, and `dup2` onto it then
    /// closed that socket (another test's connection was reset; this one waited for ever).
    @Test func aReusedNumberDoesNotWakeTheOldWaiter() async throws {
        let pool = SharedSocketPool()
        try await pool.prepare()
        let listener = try Listener()
        defer { listener.close() }
        let number = try #require(Self.spareDescriptor(), "no spare descriptor number")
        let first = try listener.connection()
        defer { try? first.client.close() }
        #expect(dup2(first.server, number) == number)
        close(first.server)
        let old = Task { try await pool.suspendSocket(Socket(file: .init(rawValue: number)), untilReadyFor: .read) }
        try await Task.sleep(for: .milliseconds(200))
        close(number)
        let second = try listener.connection()
        defer { try? second.client.close() }
        #expect(dup2(second.server, number) == number)
        close(second.server)
        defer { close(number) }
        let new = Task { try await pool.suspendSocket(Socket(file: .init(rawValue: number)), untilReadyFor: .read) }
        try await Task.sleep(for: .milliseconds(200))
        _ = try second.client.write(Data("hello".utf8))
        try await new.value
        await #expect(throws: SocketError.disconnected) { try await old.value }
    }

    /// A descriptor number no file of this process has, far above the ones it hands out (the soft
    /// limit raised to 4096 first where it is lower and the hard limit allows).
    static func spareDescriptor() -> Int32? {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        if limit.rlim_cur < 4_096, limit.rlim_max > limit.rlim_cur {
            limit.rlim_cur = min(limit.rlim_max, 4_096)
            _ = setrlimit(resource, &limit)
            guard getrlimit(resource, &limit) == 0 else { return nil }
        }
        let top = Int32(min(limit.rlim_cur - 1, 16_383))
        return stride(from: top, to: top / 2, by: -1).first { fcntl($0, F_GETFD) == -1 && errno == EBADF }
    }

    /// More listeners at once than libdispatch has threads (each of FlyingFox's own pools held one
    /// in `epoll_wait`, and the ones beyond the limit went deaf): all of them answer, and stopping
    /// half of them leaves the other half serving.
    @Test func manyListenersAllAnswer() async throws {
        let count = 320
        let servers = try await withThrowingTaskGroup(of: ProbeServer.self) { group in
            for _ in 0..<count {
                group.addTask {
                    try await ProbeServer.start(
                        at: ListenAddress(host: "127.0.0.1", family: .ipv4, port: 0), source: FixedSource())
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(servers.count == count)
        let answered = try await Self.healthy(servers)
        #expect(answered == count)

        await Self.stop(servers.prefix(count / 2))
        let rest = Array(servers.dropFirst(count / 2))
        #expect(try await Self.healthy(rest) == rest.count)
        await Self.stop(rest)
    }

    /// Stops `servers` all at once (each stop waits a moment for its connections).
    static func stop(_ servers: some Collection<ProbeServer>) async {
        await withTaskGroup(of: Void.self) { group in
            for server in servers { group.addTask { await server.stop() } }
        }
    }

    /// How many of `servers` answer `/healthz` with 200, asked all at once.
    static func healthy(_ servers: [ProbeServer]) async throws -> Int {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for server in servers {
                group.addTask {
                    try await RawHTTP.request("GET", "/healthz", port: server.address.port).status == 200
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
    }

    final class FixedSource: ProbeSource {
        func metrics(scrapeTimeout: Duration?) async -> String { "" }
        func liveness() async -> ProbeStatus { .healthy }
        func readiness() async -> ProbeStatus { .healthy }
    }
}
