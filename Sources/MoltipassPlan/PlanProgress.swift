import Foundation
import MoltipassEngine

/// The progress line of a long simulation on a terminal: `plan: simulated day 3 of 30
/// (2026-03-04)`. Pure: the caller decides when to show it (and reads the wall clock for that).
public struct PlanProgress: Sendable {
    public var start: Date
    public var end: Date
    public var zone: TimeZone

    public init(start: Date, end: Date, zone: TimeZone) {
        self.start = start
        self.end = end
        self.zone = zone
    }

    /// The line for the simulated instant `instant` (no line break).
    public func line(at instant: Date) -> String {
        let days = max(1, Int((end.timeIntervalSince(start) / 86_400).rounded(.up)))
        let day = min(days, Int(instant.timeIntervalSince(start) / 86_400) + 1)
        let local = PlanResult.local(instant, zone).prefix(16)
        return "moltipass plan: simulated day \(day) of \(days) (\(local))"
    }
}
