import Foundation

/// How many times faster than real time a scaled clock runs (`--time-scale N` of
/// `moltbook-sandbox` and `moltipass run`): a number from 1 to 100 000, for tests and demos that
/// live through simulated days in minutes.
public struct TimeScale: Sendable, Equatable {
    /// The largest factor accepted: at 100 000× a millisecond of real time is 100 virtual seconds.
    public static let maximum = 100_000.0
    /// Real time.
    public static let realTime = TimeScale(checked: 1)

    /// The factor, 1...100 000.
    public let factor: Double

    private init(checked factor: Double) { self.factor = factor }

    /// The scale `text` writes (`600`, `1.5`, `1e3`), or nil when it is not a number from 1 to 100 000.
    public init?(_ text: String) {
        guard let factor = Double(text.trimmingCharacters(in: .whitespaces)) else { return nil }
        self.init(factor: factor)
    }

    /// `factor`, or nil when it is not a number from 1 to 100 000.
    public init?(factor: Double) {
        guard factor.isFinite, factor >= 1, factor <= Self.maximum else { return nil }
        self.factor = factor
    }

    /// The message for an option value that is not a scale.
    public static func problem(_ option: String, _ text: String) -> String {
        "\(option) `\(text)` is not a time scale: give how many times faster than real time the clock runs, "
            + "a number from 1 to 100000 (600: an hour in 6 seconds)"
    }

    /// The real seconds a wait of `virtual` seconds on the scaled clock takes.
    public func realSeconds(_ virtual: TimeInterval) -> TimeInterval { virtual / factor }
}
