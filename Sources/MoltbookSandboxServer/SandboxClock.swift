import Foundation
import Synchronization

/// The server's notion of "now": the wall clock plus an adjustable offset, or a fixed virtual time once set.
public final class SandboxClock: Sendable {
    private enum Mode {
        case offset(TimeInterval)
        case fixed(Date)
    }

    private let mode: Mutex<Mode>

    public init(offset: TimeInterval = 0) {
        self.mode = Mutex(.offset(offset))
    }

    /// A virtual clock frozen at `date` until advanced or set.
    public init(fixed date: Date) {
        self.mode = Mutex(.fixed(date))
    }

    /// The current sandbox time.
    public func now() -> Date {
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
