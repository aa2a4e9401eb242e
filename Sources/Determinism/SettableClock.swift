import Foundation
import Synchronization

/// The one settable "now" of every simulated world: the sandbox server's clock, `plan`'s virtual
/// instant and the engine tests' clock.
///
/// It is either the wall clock plus an adjustable offset (the `moltbook-sandbox` executable, whose
/// `/_sandbox/clock` moves time) or a fixed virtual instant that moves only when advanced or set
/// (`plan`, tests). Code under test never reads it directly: the thin driver reads `now` and passes
/// the instant in, so the same clock can be shared by a transport and the loop that drives it.
///
/// It and `SeededRandom` form the tiny `Determinism` target (no dependencies) rather than living in
/// `MoltipassTesting`, because production code (`plan`, the sandbox server and model) needs them too and
/// never links test support; `MoltipassTesting` re-exports both for the tests.
public final class SettableClock: Sendable {
    private enum Mode {
        case offset(TimeInterval)
        case fixed(Date)
    }

    private let mode: Mutex<Mode>

    /// The wall clock shifted by `offset` seconds.
    public init(offset: TimeInterval = 0) {
        self.mode = Mutex(.offset(offset))
    }

    /// A virtual clock frozen at `date` until advanced or set.
    public init(fixed date: Date) {
        self.mode = Mutex(.fixed(date))
    }

    /// The current instant.
    public var now: Date {
        mode.withLock { mode in
            switch mode {
            case .offset(let offset): Date().addingTimeInterval(offset)
            case .fixed(let date): date
            }
        }
    }

    /// Moves time forward (or backward, for a negative interval).
    public func advance(by interval: TimeInterval) {
        mode.withLock { mode in
            switch mode {
            case .offset(let offset): mode = .offset(offset + interval)
            case .fixed(let date): mode = .fixed(date.addingTimeInterval(interval))
            }
        }
    }

    /// Freezes time at `date`; only `advance(by:)` and `set(_:)` move it from then on.
    public func set(_ date: Date) {
        mode.withLock { $0 = .fixed(date) }
    }
}
