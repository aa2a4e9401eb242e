import Dispatch
import Foundation
import MoltipassEngine
import Synchronization

/// Sleeps until a deadline, SIGTERM/SIGINT (stop) or SIGHUP (reload), whichever comes first.
///
/// The daemon's only clock wait: no polling; a signal interrupts the sleep at once.
public final class SignalWaiter: Sendable {
    /// Why a wait ended.
    public enum Wake: Sendable, Equatable {
        case deadline
        case terminate
        case reload
    }

    private let sources: SendableBox<[any DispatchSourceSignal]>
    private let pending = Mutex<[Wake]>([])
    private let waiter = Mutex<CheckedContinuation<Wake, Never>?>(nil)
    private let stopHandlers = Mutex<[@Sendable () -> Void]>([])

    public init() {
        let queue = DispatchQueue(label: "moltipass.signals")
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT, SIGHUP] {
            signal(number, SIG_IGN)
            sources.append(DispatchSource.makeSignalSource(signal: number, queue: queue))
        }
        self.sources = SendableBox(sources)
        for (source, wake) in zip(sources, [Wake.terminate, .terminate, .reload]) {
            source.setEventHandler { [weak self] in self?.deliver(wake) }
            source.resume()
        }
    }

    deinit { for source in sources.value { source.cancel() } }

    /// Calls `handler` (on the signal queue) as soon as SIGTERM or SIGINT arrives, even in the
    /// middle of a pass: `/readyz` says the runner is shutting down before the pass ends.
    public func onStop(_ handler: @escaping @Sendable () -> Void) {
        stopHandlers.withLock { $0.append(handler) }
    }

    /// A signal that arrived while nobody waited is kept for the next `wait`.
    func deliver(_ wake: Wake) {
        if wake == .terminate { for handler in stopHandlers.withLock({ $0 }) { handler() } }
        let continuation = waiter.withLock { current -> CheckedContinuation<Wake, Never>? in
            defer { current = nil }
            return current
        }
        if let continuation {
            continuation.resume(returning: wake)
        } else {
            pending.withLock { $0.append(wake) }
        }
    }

    /// Ends the current wait (or the next one) early, as its deadline would: a generated text is
    /// ready, so the daemon passes again now.
    public func wake() { deliver(.deadline) }

    /// Whether a stop signal has arrived (checked between actions).
    public var stopRequested: Bool { pending.withLock { $0.contains(.terminate) } }

    /// Waits at most `seconds`.
    public func wait(seconds: TimeInterval) async -> Wake {
        if let early = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return early }
        guard seconds > 0 else { return .deadline }
        return await withCheckedContinuation { continuation in
            waiter.withLock { $0 = continuation }
            if let early = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                deliver(early)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in self?.deliver(.deadline) }
        }
    }
}

/// Holds a value that is only touched at set-up and tear-down (the signal sources).
final class SendableBox<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) { self.value = value }
}
