import Dispatch
import Synchronization

/// A first-in, first-out lock for async code: one holder at a time, the others suspended (not
/// blocking a thread) in arrival order until it is their turn.
///
/// Shared by the stores (SQLite's lanes, the memory store, PostgreSQL's connections).
/// Taking a free gate does not suspend, so an uncontended holder stays on its thread. Release
/// hands the gate straight to the oldest waiter: a newcomer never overtakes it.
public final class AsyncGate: Sendable {
    private enum Waiter {
        case task(CheckedContinuation<Void, Never>)
        case thread(DispatchSemaphore)
    }

    private struct State {
        var held = false
        var waiters: [Waiter] = []

        /// Takes the gate if it is free.
        mutating func take() -> Bool {
            if held { return false }
            held = true
            return true
        }

        /// Takes the gate if it is free, else queues `waiter` (which `release` wakes holding it).
        mutating func take(orQueue waiter: Waiter) -> Bool {
            if take() { return true }
            waiters.append(waiter)
            return false
        }
    }

    private let state = Mutex(State())

    public init() {}

    /// Takes the gate, suspending until the holders before this caller have released it.
    public func acquire() async {
        if state.withLock({ $0.take() }) { return }
        await withCheckedContinuation { continuation in
            if state.withLock({ $0.take(orQueue: .task(continuation)) }) { continuation.resume() }
        }
    }

    /// Takes the gate, blocking the calling thread while others hold it. Never call it from a
    /// task (it would block a thread of the cooperative pool); tests that race threads do.
    public func blockingAcquire() {
        let semaphore = DispatchSemaphore(value: 0)
        if state.withLock({ $0.take(orQueue: .thread(semaphore)) }) { return }
        semaphore.wait()
    }

    /// How many callers wait for the gate (tests check that one is queued).
    public var waiting: Int { state.withLock { $0.waiters.count } }

    /// Gives the gate to the oldest waiter, or frees it.
    public func release() {
        let next = state.withLock { state -> Waiter? in
            precondition(state.held, "AsyncGate released while free")
            if state.waiters.isEmpty {
                state.held = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        switch next {
        case .task(let continuation): continuation.resume()
        case .thread(let semaphore): semaphore.signal()
        case nil: break
        }
    }
}
