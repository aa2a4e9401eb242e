/// One limit: at most `limit` admissions per `period` seconds.
///
/// Two algorithms:
/// - `slidingWindow`: never more than `limit` in any span of `period` (a log of the last
///   `limit` admission times). Exact for the server's cooldowns and daily caps, and stricter
///   than a fixed window, so it cannot cause a 429 that a fixed-window server would not.
/// - `gcra`: the generic cell rate algorithm (a token bucket of `limit` tokens refilling one
///   per `period/limit`): smooth rates with a burst, for local pacing rules.
public struct Rule: Sendable, Codable, Equatable, Hashable, CustomStringConvertible {
    public enum Algorithm: String, Sendable, Codable {
        case slidingWindow = "sliding_window"
        case gcra
    }

    /// Stable name, part of the persisted state key (`comment.daily`).
    public var id: String
    public var limit: Int
    /// Seconds.
    public var period: Double
    public var algorithm: Algorithm

    public init(id: String, limit: Int, period: Double, algorithm: Algorithm = .slidingWindow) {
        self.id = id
        self.limit = limit
        self.period = period
        self.algorithm = algorithm
    }

    /// "comment.daily: 50 per 24h".
    public var description: String { "\(id): \(limit) per \(Self.format(period))" }

    static func format(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole % 86_400 == 0 { return "\(whole / 86_400)d".replacingOccurrences(of: "1d", with: "24h") }
        if whole % 3_600 == 0 { return "\(whole / 3_600)h" }
        if whole % 60 == 0 { return "\(whole / 60)m" }
        return "\(whole)s"
    }
}
