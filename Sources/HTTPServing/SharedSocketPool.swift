import CEpoll
import FlyingSocks
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One socket pool for every FlyingFox listener of the process: one `epoll` set and one thread of
/// its own waiting on it, however many listeners; with `TCP_NODELAY` on every socket it waits for.
///
/// Why not FlyingFox's pools: each server gets a pool of its own, and each pool waits in
/// `epoll_wait(…, -1)` on a thread of libdispatch's that it holds for as long as the server lives.
/// libdispatch has at most 255 such threads: a process with more listeners at once (the test
/// process starts a sandbox for most of its several hundred tests, all of them concurrently) ran
/// out, and every listener whose pool got no thread went deaf until others ended (CI failed on it
/// with loopback timeouts). Nor can one of FlyingFox's pools be shared: its epoll bookkeeping is
/// by descriptor number and outlives a socket closed while registered, so another listener's
/// socket that gets the same number later is never armed.
///
/// Here every wait is one registration: `EPOLLONESHOT`, level-triggered (readiness that is already
/// there when a socket is armed is reported at once), armed with `EPOLL_CTL_MOD` or, when the
/// kernel no longer has the descriptor (it was closed and its number reused), `EPOLL_CTL_ADD`.
/// Nothing about a descriptor is kept once nobody waits on it. A wait that is cancelled (a server
/// stopping) ends with `CancellationError` and disarms its descriptor. Each wait knows its socket
/// by device and inode: a server that closes a socket while one of its tasks still waits on it
/// (FlyingFox's stop does) must not have that task woken by, and reading from, another server's
/// socket that got the same number; such a wait ends as disconnected instead.
///
/// Why `TCP_NODELAY`: a server writes a response's head and body separately, and without it
/// Nagle's algorithm holds the body of a reused connection's answer until the client's delayed ACK
/// (Linux: 40 ms). FlyingFox has no hook on accepted sockets, but each connection waits in the pool
/// before its first request (and between requests), so the option is set before any response but,
/// at most, a connection's very first one.
///
/// A server's `run()` of this pool only waits for the server's stop (its task cancelled); the
/// shared thread goes on for the others.
public final class SharedSocketPool: AsyncSocketPool, Sendable {
    /// The process's pool.
    public static let process = SharedSocketPool()

    private struct Waiter {
        let id: UInt64
        /// Which socket it waits on: a descriptor's number is reused once it is closed.
        let socket: Identity
        let events: Socket.Events
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// A socket's identity (its device and inode), which outlives the reuse of its number.
    struct Identity: Equatable {
        let device: UInt64
        let inode: UInt64

        /// The identity of the socket `descriptor` names now; nil when it names none.
        init?(_ descriptor: Int32) {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    private struct State {
        /// The epoll descriptor, once the waiting thread runs.
        var epoll: Int32?
        var waiters: [Int32: [Waiter]] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A pool of its own (tests); listeners use `process`.
    init() {}

    /// Opens the epoll set and starts the waiting thread unless they exist.
    public func prepare() async throws {
        try state.withLock { state in
            guard state.epoll == nil else { return }
            let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
            guard epoll >= 0 else { throw PoolError("epoll_create1: \(String(cString: strerror(errno)))") }
            state.epoll = epoll
            let thread = Thread { [self] in wait(on: epoll) }
            thread.name = "moltipass-sockets"
            thread.start()
        }
    }

    /// Waits until the calling server is stopped (its task cancelled); the pool runs on.
    public func run() async throws {
        while true { try await Task.sleep(for: .seconds(86_400)) }
    }

    public func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        let descriptor = socket.file.rawValue
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        guard let identity = Identity(descriptor) else { throw SocketError.disconnected }
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (failure, stale) = state.withLock { state -> ((any Error)?, [Waiter]) in
                    guard let epoll = state.epoll else { return (PoolError("the socket pool is not prepared"), []) }
                    // Waiters on an earlier socket with this number: it was closed under them.
                    let (stale, same) = (state.waiters[descriptor] ?? []).partitioned { $0.socket != identity }
                    state.waiters[descriptor] =
                        same + [Waiter(id: id, socket: identity, events: events, continuation: continuation)]
                    return (Self.arm(descriptor, in: &state, epoll: epoll, holding: id), stale)
                }
                for waiter in stale { waiter.continuation.resume(throwing: SocketError.disconnected) }
                if let failure {
                    continuation.resume(throwing: failure)
                } else if Task.isCancelled {
                    // Cancelled before it was registered: the handler found nothing to end.
                    cancel(id, on: descriptor)
                }
            }
        } onCancel: {
            cancel(id, on: descriptor)
        }
    }

    /// Ends the wait `id` with `CancellationError` if it still waits.
    private func cancel(_ id: UInt64, on descriptor: Int32) {
        let cancelled = state.withLock { state -> Waiter? in
            guard var list = state.waiters[descriptor], let index = list.firstIndex(where: { $0.id == id }) else {
                return nil
            }
            let waiter = list.remove(at: index)
            state.waiters[descriptor] = list.isEmpty ? nil : list
            if let epoll = state.epoll { _ = Self.arm(descriptor, in: &state, epoll: epoll) }
            return waiter
        }
        cancelled?.continuation.resume(throwing: CancellationError())
    }

    /// Arms `descriptor` for the union of its waiters' events (one shot), or disarms it when none
    /// waits. On failure its waiters are removed and resumed with the error, but for `holding`,
    /// which the caller resumes.
    private static func arm(_ descriptor: Int32, in state: inout State, epoll: Int32, holding: UInt64? = nil)
        -> (any Error)?
    {
        let waiting = state.waiters[descriptor] ?? []
        var event = epoll_event()
        event.data.fd = descriptor
        if waiting.isEmpty {
            _ = epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, &event)
            return nil
        }
        var mask = UInt32(EPOLLONESHOT.rawValue)
        for wanted in waiting.reduce(into: Socket.Events(), { $0.formUnion($1.events) }) {
            switch wanted {
            case .read: mask |= UInt32(EPOLLIN.rawValue)
            case .write: mask |= UInt32(EPOLLOUT.rawValue)
            }
        }
        event.events = mask
        if epoll_ctl(epoll, EPOLL_CTL_MOD, descriptor, &event) == 0 { return nil }
        if errno == ENOENT, epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) == 0 { return nil }
        let error = PoolError("cannot wait on socket \(descriptor): \(String(cString: strerror(errno)))")
        state.waiters[descriptor] = nil
        for waiter in waiting where waiter.id != holding { waiter.continuation.resume(throwing: error) }
        return error
    }

    /// The waiting thread: resumes the waiters of each ready descriptor and re-arms it for the
    /// ones that wait for something else.
    private func wait(on epoll: Int32) {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            let count = epoll_wait(epoll, &events, Int32(events.count), -1)
            if count < 0 {
                if errno == EINTR { continue }
                // Not expected from a valid epoll descriptor; a short pause keeps a failing call
                // from spinning.
                usleep(10_000)
                continue
            }
            for event in events.prefix(Int(count)) {
                let descriptor = event.data.fd
                var ready = Socket.Events()
                let hangUp = UInt32(EPOLLERR.rawValue) | UInt32(EPOLLHUP.rawValue)
                if event.events & (UInt32(EPOLLIN.rawValue) | hangUp) != 0 { ready.insert(.read) }
                if event.events & (UInt32(EPOLLOUT.rawValue) | hangUp) != 0 { ready.insert(.write) }
                // An error or hang-up wakes every waiter: its read or write then meets it. Waiters
                // on an earlier socket with this number end as disconnected (theirs was closed).
                let identity = Identity(descriptor)
                let (resumed, stale) = state.withLock { state -> ([Waiter], [Waiter]) in
                    let (stale, current) = (state.waiters[descriptor] ?? []).partitioned { $0.socket != identity }
                    let (later, now) = current.partitioned { $0.events.isDisjoint(with: ready) }
                    state.waiters[descriptor] = later.isEmpty ? nil : later
                    if !later.isEmpty { _ = Self.arm(descriptor, in: &state, epoll: epoll) }
                    return (now, stale)
                }
                for waiter in stale { waiter.continuation.resume(throwing: SocketError.disconnected) }
                for waiter in resumed { waiter.continuation.resume() }
            }
        }
    }
}

extension Array {
    /// (the elements `test` accepts, the others), each in order.
    fileprivate func partitioned(_ test: (Element) -> Bool) -> ([Element], [Element]) {
        var (yes, no) = ([Element](), [Element]())
        for element in self {
            if test(element) { yes.append(element) } else { no.append(element) }
        }
        return (yes, no)
    }
}

/// The pool could not wait on a socket.
struct PoolError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
