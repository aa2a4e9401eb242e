import FlyingSocks
import Foundation

/// FlyingFox's socket pool with `TCP_NODELAY` set on every socket it waits for.
///
/// The server writes a response's head and body separately; without `TCP_NODELAY`, Nagle's
/// algorithm holds the body until the client acknowledges the head, and a client delaying its ACK
/// (Linux: 40 ms) stalls every request on a reused connection. FlyingFox has no hook on accepted
/// sockets, but each connection waits in the pool for its first request (and between requests), so
/// the option is set before any response but, at most, a connection's very first one.
struct NoDelaySocketPool<Inner: AsyncSocketPool>: AsyncSocketPool {
    let inner: Inner

    func prepare() async throws { try await inner.prepare() }

    func run() async throws { try await inner.run() }

    func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        Self.setNoDelay(socket.file.rawValue)
        try await inner.suspendSocket(socket, untilReadyFor: events)
    }

    /// Best effort: on a socket that is not TCP (the option does not apply) it fails harmlessly.
    static func setNoDelay(_ descriptor: Int32) {
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }
}
