import FlyingSocks
import Foundation
import Synchronization
import Testing

@testable import MoltbookSandboxServer

/// The sandbox server's socket pool sets `TCP_NODELAY` on each socket before waiting on it, and
/// otherwise leaves the waiting to FlyingFox's pool.
@Suite("Sandbox server sockets")
struct NoDelaySocketPoolTests {
    /// Records which sockets it was asked to wait for, and returns at once.
    final class RecordingPool: AsyncSocketPool {
        let waited = Mutex<[Int32]>([])
        func prepare() async throws {}
        func run() async throws {}
        func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
            waited.withLock { $0.append(socket.file.rawValue) }
        }
    }

    static func noDelay(_ descriptor: Int32) -> Int32 {
        var value: Int32 = -1
        var length = socklen_t(MemoryLayout<Int32>.size)
        #expect(getsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &length) == 0)
        return value
    }

    @Test func setsNoDelayBeforeWaiting() async throws {
        let socket = try Socket(domain: AF_INET)
        defer { try? socket.close() }
        #expect(Self.noDelay(socket.file.rawValue) == 0)
        let inner = RecordingPool()
        try await NoDelaySocketPool(inner: inner).suspendSocket(socket, untilReadyFor: .read)
        #expect(Self.noDelay(socket.file.rawValue) != 0)
        #expect(inner.waited.withLock { $0 } == [socket.file.rawValue])
    }

    /// A socket the option does not apply to (a Unix socket) is waited on all the same.
    @Test func otherSocketsAreLeftAlone() async throws {
        let socket = try Socket(domain: AF_UNIX)
        defer { try? socket.close() }
        let inner = RecordingPool()
        try await NoDelaySocketPool(inner: inner).suspendSocket(socket, untilReadyFor: .write)
        #expect(inner.waited.withLock { $0 } == [socket.file.rawValue])
    }
}
