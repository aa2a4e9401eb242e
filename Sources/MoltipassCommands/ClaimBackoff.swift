import Foundation
import MoltipassEngine

/// How long `claim --wait` sleeps between polls of `/agents/status`, as a pure function of
/// the time elapsed since the first poll.
///
/// Every `initial` seconds during the first `fastPeriod` (the owner is usually clicking the
/// claim link right now), then `3 × initial` until `slowAfter`, then `maximum`. Never less
/// than `initial`, never more than `max(initial, maximum)`.
public struct ClaimBackoff: Sendable, Equatable {
    /// Interval during the first `fastPeriod` seconds.
    public var initial: Double
    /// Length of the fast phase, seconds.
    public var fastPeriod: Double
    /// When the slow phase starts, seconds after the first poll.
    public var slowAfter: Double
    /// Interval in the slow phase.
    public var maximum: Double

    public init(initial: Double = 3, fastPeriod: Double = 60, slowAfter: Double = 300, maximum: Double = 30) {
        self.initial = initial
        self.fastPeriod = fastPeriod
        self.slowAfter = slowAfter
        self.maximum = maximum
    }

    /// The default schedule: 3 s for a minute, 9 s until five minutes, then 30 s.
    public static let standard = ClaimBackoff()

    /// Accepted `--poll-interval` values (seconds).
    public static let initialRange: ClosedRange<Double> = 0.05...60

    /// The sleep after a poll made `elapsed` seconds after the first one.
    public func delay(elapsed: Double) -> Double {
        let ceiling = Swift.max(initial, maximum)
        if !(elapsed >= fastPeriod) { return initial }  // also for NaN and negative (clock stepped back)
        if elapsed < slowAfter { return Swift.min(initial * 3, ceiling) }
        return ceiling
    }

    /// Parses `10m`, `90s`, `1h`, `1h30m` or plain seconds (`45`). `nil` when malformed or not positive.
    public static func parseDuration(_ text: String) -> Double? {
        var total = 0.0
        var number = ""
        var sawUnit = false
        for character in text.trimmingCharacters(in: .whitespaces) {
            if character.isNumber || character == "." {
                number.append(character)
                continue
            }
            guard let value = Double(number) else { return nil }
            switch character {
            case "s": total += value
            case "m": total += value * 60
            case "h": total += value * 3600
            default: return nil
            }
            number = ""
            sawUnit = true
        }
        if !number.isEmpty {
            guard !sawUnit, let value = Double(number) else { return nil }
            total += value
        }
        return total > 0 && total.isFinite ? total : nil
    }
}
