import Foundation
import MoltipassEngine
import Recipes

/// The one time zone a plan's table, page and `--explain` show every row in (`--tz`).
public struct PlanDisplayZone: Sendable, Equatable {
    public var identifier: String
    /// Why this zone: `--tz`, the recipes' zone, or UTC because the recipes' zones differ.
    public var why: String
    public var zone: TimeZone

    /// `--tz NAME` when given (an IANA name, `UTC`); else the recipes' zone when they all have
    /// the same one; else UTC. Throws when `flag` names no zone.
    public static func choose(flag: String?, recipeZones: [String]) throws -> PlanDisplayZone {
        if let flag {
            guard let zone = TimeZone(identifier: flag) else {
                throw PlanError("--tz: \(flag) is not a time zone (an IANA name such as Europe/Berlin, or UTC)")
            }
            return PlanDisplayZone(identifier: flag, why: "--tz", zone: zone)
        }
        // Foundation names UTC "GMT"; the recipes and `--tz` say UTC.
        let distinct = Array(Set(recipeZones.map { $0 == "GMT" ? "UTC" : $0 })).sorted()
        if distinct.count == 1, let only = distinct.first, let zone = TimeZone(identifier: only) {
            return PlanDisplayZone(identifier: only, why: "the recipes' zone", zone: zone)
        }
        if distinct.isEmpty { return PlanDisplayZone(identifier: "UTC", why: "no recipe names a zone", zone: .gmt) }
        return PlanDisplayZone(
            identifier: "UTC", why: "the recipes' zones differ: \(distinct.joined(separator: ", ")); --tz chooses",
            zone: .gmt)
    }

    /// `choose(flag:recipeZones:)` with the recipes' zones.
    public static func choose(flag: String?, recipes: [Recipe]) throws -> PlanDisplayZone {
        try choose(flag: flag, recipeZones: recipes.map(\.timeZone.identifier))
    }

    /// The header line's words: `times in Europe/Berlin (the recipes' zone)`.
    public var header: String { "times in \(identifier) (\(why))" }
}

extension PlanResult {
    /// The zone chosen when no `--tz` is given: the agents' zone if they share one, else UTC.
    public var defaultDisplayZone: PlanDisplayZone {
        (try? PlanDisplayZone.choose(flag: nil, recipeZones: Array(timeZones.values)))
            ?? PlanDisplayZone(identifier: "UTC", why: "default", zone: .gmt)
    }

    /// The events in the order of their instants (a stable sort: simulated order within one).
    public var eventsByTime: [Event] {
        events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }

    /// What a row shows as the target: a post's title and author, a submolt, an agent, an id.
    package static func targetText(_ event: Event, limit: Int = 36) -> String {
        targetText(
            action: event.action, target: event.target, title: event.targetTitle, author: event.targetAuthor,
            submolt: event.submolt, limit: limit)
    }

    /// The same from an event's fields (a `--live` row has them too).
    package static func targetText(
        action: String, target: String?, title: String?, author: String?, submolt: String?, limit: Int = 36
    ) -> String {
        if let title {
            return "“\(cut(title, limit))”" + (author.map { " by \($0)" } ?? "")
        }
        switch action {
        case "post": return submolt.map { "m/\($0)" } ?? ""
        case "subscribe", "unsubscribe": return target.map { "m/\($0)" } ?? ""
        default: return target ?? submolt.map { "m/\($0)" } ?? ""
        }
    }
}
