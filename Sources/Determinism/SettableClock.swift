import Foundation
import Synchronization

/// The one settable "now" of every simulated world: the sandbox server's clock, `plan`'s virtual
/// instant, the engine tests' clock and the session clock of `moltipass run --now/--time-scale`.
///
/// It is the wall clock plus an adjustable offset (the `moltbook-sandbox` executable, whose
/// `/_sandbox/clock` moves time), a fixed virtual instant that moves only when advanced or set
/// (`plan`, tests), or a scaled clock that starts at an instant and runs `scale` times faster than
/// real time (`--now`, `--time-scale`: a daemon living through a simulated day in minutes). Code
/// under test never reads it directly: the thin driver reads `now` and passes the instant in, so
/// the same clock can be shared by a transport and the loop that drives it.
///
/// It and `SeededRandom` form the tiny `Determinism` target (no dependencies) rather than living in
/// `MoltipassTesting`, because production code (`plan`, the sandbox server and model) needs them too and
/// never links test support; `MoltipassTesting` re-exports both for the tests.
public final class SettableClock: Sendable {
    private enum Mode {
        case offset(TimeInterval)
        case fixed(Date)
        /// `now = origin + (elapsed() - mark) * scale`: `mark` is the real elapsed time at which
        /// the clock read `origin`.
        case scaled(origin: Date, mark: Duration, scale: Double)
    }

    private let mode: Mutex<Mode>
    /// Real time elapsed since some fixed point, never going backwards (scaled mode only).
    private let elapsed: @Sendable () -> Duration

    /// The wall clock shifted by `offset` seconds.
    public init(offset: TimeInterval = 0) {
        self.mode = Mutex(.offset(offset))
        self.elapsed = { .zero }
    }

    /// A virtual clock frozen at `date` until advanced or set.
    public init(fixed date: Date) {
        self.mode = Mutex(.fixed(date))
        self.elapsed = { .zero }
    }

    /// A clock that reads `start` now and then runs `scale` times faster than real time (1: real
    /// speed from `start`), on the monotonic clock: changing the system time does not move it.
    public convenience init(start: Date, scale: Double) {
        let base = ContinuousClock.now
        self.init(start: start, scale: scale, elapsed: { base.duration(to: .now) })
    }

    /// A scaled clock reading real elapsed time from `elapsed` (tests inject a manual source).
    /// `scale` must be positive and finite.
    public init(start: Date, scale: Double, elapsed: @escaping @Sendable () -> Duration) {
        precondition(scale > 0 && scale.isFinite, "a clock's scale must be positive")
        self.elapsed = elapsed
        self.mode = Mutex(.scaled(origin: start, mark: elapsed(), scale: scale))
    }

    /// The current instant.
    public var now: Date {
        mode.withLock { mode in
            switch mode {
            case .offset(let offset): Date().addingTimeInterval(offset)
            case .fixed(let date): date
            case .scaled(let origin, let mark, let scale):
                origin.addingTimeInterval(Self.seconds(elapsed() - mark) * scale)
            }
        }
    }

    /// How many times faster than real time a scaled clock runs; nil for the other modes.
    public var timeScale: Double? {
        mode.withLock { mode in
            if case .scaled(_, _, let scale) = mode { return scale }
            return nil
        }
    }

    /// Moves time forward (or backward, for a negative interval); a scaled clock goes on running
    /// from there.
    public func advance(by interval: TimeInterval) {
        mode.withLock { mode in
            switch mode {
            case .offset(let offset): mode = .offset(offset + interval)
            case .fixed(let date): mode = .fixed(date.addingTimeInterval(interval))
            case .scaled(let origin, let mark, let scale):
                mode = .scaled(origin: origin.addingTimeInterval(interval), mark: mark, scale: scale)
            }
        }
    }

    /// Puts the clock at `date`. The wall clock plus offset and a fixed clock freeze there (only
    /// `advance(by:)` and `set(_:)` move them from then on); a scaled clock goes on running from there.
    public func set(_ date: Date) {
        mode.withLock { mode in
            switch mode {
            case .offset, .fixed: mode = .fixed(date)
            case .scaled(_, _, let scale): mode = .scaled(origin: date, mark: elapsed(), scale: scale)
            }
        }
    }

    /// A duration in seconds.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
