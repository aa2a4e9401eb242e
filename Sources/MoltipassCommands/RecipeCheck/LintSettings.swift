import Foundation
import MoltipassEngine
import Recipes

/// What `moltipass lint` checks against: a start instant, a horizon and a limit profile.
public struct LintSettings: Sendable, Equatable {
    /// A `--horizon` or `--from` value that could not be read.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// The instant schedules are simulated from (the command line passes the current time by default).
    public var from: Date
    /// How far ahead schedules are simulated, in seconds.
    public var horizon: Int
    /// Check against the stricter limits of an agent's first 24 hours.
    public var newAgent: Bool

    /// Seven days.
    public static let defaultHorizon = 7 * 86_400

    public init(from: Date, horizon: Int = defaultHorizon, newAgent: Bool = false) {
        self.from = from
        self.horizon = horizon
        self.newAgent = newAgent
    }

    /// The profile's name in reports: `standard` or `new-agent`.
    public var profileName: String { newAgent ? "new-agent" : "standard" }

    var options: LintOptions {
        LintOptions(profile: newAgent ? .newAgent : .standard, from: from, horizon: horizon)
    }

    /// A horizon in the recipe notation (`90m`, `7d`, `1d12h`; at most a year).
    public static func horizon(_ text: String) throws(Failure) -> Int {
        do {
            return try DurationText.seconds(text)
        } catch {
            throw Failure(
                description: "invalid horizon `\(text)`: \(error.message); expected a duration such as 7d or 36h")
        }
    }

    /// An ISO 8601 instant with a zone (`2026-03-01T09:00:00Z`, `2026-03-01T09:00:00+01:00`, fractional seconds
    /// allowed).
    public static func instant(_ text: String) throws(Failure) -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        throw Failure(
            description: "invalid instant `\(text)`; expected ISO 8601 with a zone, such as 2026-03-01T09:00:00Z")
    }

    /// `instant` in the form reports use (`2026-03-01T09:00:00Z`).
    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
