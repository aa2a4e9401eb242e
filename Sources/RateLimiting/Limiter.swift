import Foundation

/// The per-account rate limiter: rules per class, server holds, and what it learned from 429s.
///
/// A value type with the time passed to every method (modelled on golang.org/x/time/rate's
/// `ReserveN(t, n)` / `TokensAt(t)`): the same calls at the same instants give the same
/// answers, which is what makes `plan` and the tests exact. Persist it with `serialized()` and
/// `init(serialized:)` (compact; also reads the older `Codable` JSON form).
public struct Limiter: Sendable, Codable, Equatable {
    /// Why an action waits.
    public struct Binding: Sendable, Codable, Equatable, CustomStringConvertible {
        public enum Source: String, Sendable, Codable {
            /// A local rule (the profile or a recipe override).
            case rule
            /// A server hint (429 body or headers) holds the class.
            case serverHint = "server_hint"
            /// A rule learned from a 429 that came although the local rules allowed the request.
            case learned
        }

        public var limitClass: LimitClass
        public var source: Source
        /// The rule (`comment.daily: 50 per 24h`) or the hint (`429 retry_after_minutes=20`).
        public var detail: String

        public var description: String { "\(limitClass.rawValue) \(source.rawValue): \(detail)" }
    }

    /// The verdict for an action at an instant.
    public enum Decision: Sendable, Equatable {
        /// Admitted and recorded.
        case allowed
        /// Not now; the earliest instant it would be admitted, and the binding limit.
        case deferred(until: Date, because: Binding)
        /// Never (a zero limit).
        case never(because: Binding)
    }

    /// A server-imposed "not before".
    public struct Hold: Sendable, Codable, Equatable {
        public var until: Date
        public var detail: String
    }

    public internal(set) var rules: [LimitClass: [Rule]]
    var states: [String: RuleState] = [:]
    public internal(set) var holds: [LimitClass: Hold] = [:]
    /// Minimum spacing per class learned from 429s the local rules did not foresee.
    public internal(set) var learned: [LimitClass: Double] = [:]
    /// When each spacing was learned: it lapses `learnedLifetime` later unless a new 429 renews it.
    public internal(set) var learnedAt: [LimitClass: Date] = [:]

    /// How long a learned spacing holds without a new surprise 429: a day, so a server that
    /// relaxed again (or a 429 that an outside write caused) costs at most a day of slower pace.
    public static let learnedLifetime: TimeInterval = 86_400
    /// The last two admissions per class (to learn from a surprise 429 and to cancel one).
    var recentAdmissions: [LimitClass: [Date]] = [:]
    /// The window each class's responses last reported (its limit and reset), within this
    /// process (not stored): two classes whose windows have one limit and one reset are one
    /// bucket, and what either's response says of it holds for both (issue 33, observation 4: a
    /// window shared by reads and writes, or by every kind of write, drew a 429 per class).
    var windows: [LimitClass: WindowMark] = [:]

    struct WindowMark: Sendable, Equatable {
        var limit: Int
        var reset: Date
    }

    public init(rules: [LimitClass: [Rule]]) {
        self.rules = rules
    }

    /// The `Codable` form (read for state written before the binary form): without
    /// `learnedAt`, which that form never had (its learned spacings lapse at once).
    enum CodingKeys: String, CodingKey {
        case rules, states, holds, learned, recentAdmissions
    }

    /// Replaces the rules (a profile change: the first-24-hours profile lifting, an override);
    /// the recorded admissions are kept.
    public mutating func setRules(_ rules: [LimitClass: [Rule]]) {
        self.rules = rules
    }

    /// The earliest instant at or after `now` when one admission in every class of `classes`
    /// fits, without recording anything. Nil date with a binding means never.
    public func earliest(_ classes: [LimitClass], at now: Date) -> (date: Date?, binding: Binding?) {
        var latest = now
        var binding: Binding?
        for limitClass in Set(classes).sorted() {
            for rule in effectiveRules(for: limitClass) {
                let state = states[key(limitClass, rule)] ?? .empty(for: rule)
                let source: Binding.Source = rule.id.hasSuffix(".learned") ? .learned : .rule
                guard let date = state.earliest(for: rule, at: now) else {
                    return (nil, Binding(limitClass: limitClass, source: source, detail: rule.description))
                }
                if date > latest {
                    latest = date
                    binding = Binding(limitClass: limitClass, source: source, detail: rule.description)
                }
            }
            if let hold = holds[limitClass], hold.until > latest {
                latest = hold.until
                binding = Binding(limitClass: limitClass, source: .serverHint, detail: hold.detail)
            }
        }
        return (latest, binding)
    }

    /// Admits one action counting against every class in `classes` if all allow it at `now`
    /// (and records it); otherwise records nothing and says until when and why.
    public mutating func reserve(_ classes: [LimitClass], at now: Date) -> Decision {
        expireLearned(at: now)
        let (date, binding) = earliest(classes, at: now)
        guard let date else { return .never(because: binding!) }
        guard date <= now else { return .deferred(until: date, because: binding!) }
        for limitClass in Set(classes) {
            for rule in effectiveRules(for: limitClass) {
                let key = key(limitClass, rule)
                states[key] = (states[key] ?? .empty(for: rule)).admitting(for: rule, at: now)
            }
            recentAdmissions[limitClass, default: []] = Array(((recentAdmissions[limitClass] ?? []) + [now]).suffix(2))
        }
        return .allowed
    }

    /// Admissions left in `limitClass` at `now`: the smallest over its rules (0 while held).
    public func tokens(_ limitClass: LimitClass, at now: Date) -> Int {
        if let hold = holds[limitClass], hold.until > now { return 0 }
        return effectiveRules(for: limitClass)
            .map { (states[key(limitClass, $0)] ?? .empty(for: $0)).tokens(for: $0, at: now) }
            .min() ?? Int.max
    }

    // MARK: Internals

    func effectiveRules(for limitClass: LimitClass) -> [Rule] {
        var result = rules[limitClass] ?? []
        if let spacing = learned[limitClass] {
            result.append(Rule(id: "\(limitClass.rawValue).learned", limit: 1, period: spacing))
        }
        return result
    }

    func key(_ limitClass: LimitClass, _ rule: Rule) -> String { "\(limitClass.rawValue)/\(rule.id)" }

    mutating func hold(_ limitClass: LimitClass, until: Date, detail: String) {
        if let existing = holds[limitClass], existing.until >= until { return }
        holds[limitClass] = Hold(until: until, detail: detail)
    }

    mutating func consume(_ limitClass: LimitClass, rule: Rule, count: Int, at instant: Date) {
        let key = key(limitClass, rule)
        states[key] = (states[key] ?? .empty(for: rule)).consuming(count, for: rule, at: instant)
    }

    /// Learns (or renews) a spacing at `now`. The newest refusal's spacing replaces an older one.
    mutating func learn(_ limitClass: LimitClass, spacing: Double, at now: Date) {
        learned[limitClass] = spacing
        learnedAt[limitClass] = now
    }

    /// Drops the learned spacings whose lifetime has passed at `now` (and, with them, their
    /// rule states).
    mutating func expireLearned(at now: Date) {
        for (limitClass, _) in learned {
            let since = learnedAt[limitClass] ?? .distantPast
            guard now.timeIntervalSince(since) >= Self.learnedLifetime else { continue }
            learned[limitClass] = nil
            learnedAt[limitClass] = nil
            states[key(limitClass, Rule(id: "\(limitClass.rawValue).learned", limit: 1, period: 0))] = nil
        }
    }

    func lastAdmitted(_ limitClass: LimitClass) -> Date? { recentAdmissions[limitClass]?.last }

    /// Charges one admission in every class of `classes` at `instant` without checking: an action
    /// that happened while this limiter was not watching (a run killed after sending, whose
    /// write the next run found by reading back). A class that already has an admission recorded
    /// at exactly `instant` is left alone, so the same action is not charged twice.
    public mutating func record(_ classes: [LimitClass], at instant: Date) {
        for limitClass in Set(classes) {
            if recentAdmissions[limitClass]?.contains(instant) == true { continue }
            for rule in effectiveRules(for: limitClass) {
                consume(limitClass, rule: rule, count: 1, at: instant)
            }
            let recent = ((recentAdmissions[limitClass] ?? []) + [instant]).sorted()
            recentAdmissions[limitClass] = Array(recent.suffix(2))
        }
    }

    /// Takes back an admission of `limitClass` recorded at `instant` (the server refused the
    /// request, so it did not happen). Like x/time/rate's `Reservation.Cancel`.
    public mutating func cancel(_ limitClass: LimitClass, reservedAt instant: Date) {
        for rule in effectiveRules(for: limitClass) {
            let key = key(limitClass, rule)
            switch states[key] {
            case .window(var times)?:
                if let index = times.lastIndex(of: instant) { times.remove(at: index) }
                states[key] = .window(times)
            case .gcra(let tat?)?:
                states[key] = .gcra(tat.addingTimeInterval(-rule.period / Double(max(rule.limit, 1))))
            default:
                break
            }
        }
        if var recent = recentAdmissions[limitClass], let index = recent.lastIndex(of: instant) {
            recent.remove(at: index)
            recentAdmissions[limitClass] = recent
        }
    }
}
