import ChallengeSolver
import Foundation
import Recipes

/// What to do about verification challenges: the solver, how many answers to send per challenge, and what to
/// do after a failure (a decline, a wrong answer or an expired code).
///
/// JSON form: `{"solver":{"solver":"builtin","threshold":0.7},"max_attempts":1,"on_fail":{"pause":21600}}`;
/// every key is optional.
public struct ChallengePolicy: Sendable, Equatable, Codable {
    /// What happens after a failed challenge.
    public enum OnFail: Sendable, Equatable, Codable {
        /// Pause the account's writes for this many seconds (cron runs exit with the paused code meanwhile).
        case pause(TimeInterval)
    }

    /// The default pause after a failure: six hours.
    public static let defaultPause: TimeInterval = 6 * 3600
    /// Failures in a row that stop the agent by default: two, far below the server's ten.
    public static let defaultStopAfter = 2
    /// Moltbook suspends an account after this many failed or expired challenges in a row (shared/reference).
    public static let serverThreshold = 10
    /// The most failures in a row the runner lets the server count before it stops the agent for good, whatever
    /// `stop_after` or `moltipass resume` say (issue 34): one open challenge expiring unanswered and one more
    /// challenged write failing still stay below `serverThreshold`. `stop_after` is capped at it.
    public static let safeStreak = serverThreshold - 2

    public var solver: ChallengeSolverConfig
    /// Answers sent per challenge code (the server treats a code as single-use, so more than 1 rarely helps).
    public var maxAttempts: Int
    public var onFail: OnFail
    /// Failed challenges in a row (declines and expiries included, as the server counts them)
    /// after which the agent's writes stop until an operator resumes it: each timed pause ends
    /// and the next write is challenged again, so pauses alone let failures add up to the
    /// server's ten (an agent was suspended so after ~62 hours).
    public var stopAfter: Int

    public init(
        solver: ChallengeSolverConfig = .default, maxAttempts: Int = 1, onFail: OnFail = .pause(defaultPause),
        stopAfter: Int = defaultStopAfter
    ) {
        self.solver = solver
        self.maxAttempts = maxAttempts
        self.onFail = onFail
        self.stopAfter = stopAfter
    }

    /// The default policy: built-in solver, one attempt, pause six hours on failure.
    public static let `default` = ChallengePolicy()

    /// How long writes pause after a failure.
    public var pauseDuration: TimeInterval {
        switch onFail {
        case .pause(let seconds): seconds
        }
    }

    /// Problems with the values (attempts 1…5, pause 1 minute … 7 days), empty when valid.
    public var problems: [String] {
        var out: [String] = []
        if !(1...5).contains(maxAttempts) { out.append("max_attempts must be 1…5, got \(maxAttempts)") }
        if !(60...(7 * 86_400)).contains(pauseDuration) {
            out.append("on_fail pause must be between 60 seconds and 7 days, got \(Int(pauseDuration)) s")
        }
        if case .builtin(let threshold) = solver, !(0...1).contains(threshold) {
            out.append("threshold must be between 0 and 1, got \(threshold)")
        }
        if case .command(_, let timeout) = solver, !(timeout > 0 && timeout <= 300) {
            out.append("command timeout must be more than 0 and at most 300 seconds, got \(timeout)")
        }
        return out
    }

    private enum CodingKeys: String, CodingKey {
        case solver
        case maxAttempts = "max_attempts"
        case onFail = "on_fail"
        case stopAfter = "stop_after"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        solver = try container.decodeIfPresent(ChallengeSolverConfig.self, forKey: .solver) ?? .default
        maxAttempts = try container.decodeIfPresent(Int.self, forKey: .maxAttempts) ?? 1
        onFail = try container.decodeIfPresent(OnFail.self, forKey: .onFail) ?? .pause(Self.defaultPause)
        stopAfter = try container.decodeIfPresent(Int.self, forKey: .stopAfter) ?? Self.defaultStopAfter
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(solver, forKey: .solver)
        try container.encode(maxAttempts, forKey: .maxAttempts)
        try container.encode(onFail, forKey: .onFail)
        try container.encode(stopAfter, forKey: .stopAfter)
    }
}

extension ChallengePolicy.OnFail {
    private enum CodingKeys: String, CodingKey {
        case pause
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self = .pause(try container.decode(TimeInterval.self, forKey: .pause))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .pause(let seconds): try container.encode(seconds, forKey: .pause)
        }
    }
}

extension ChallengePolicy {
    /// The policy a recipe's `challenge:` block asks for, defaults filling what it leaves out.
    public init(settings: ChallengeSettings?) {
        self.init()
        guard let settings else { return }
        switch settings.solver {
        case .some(.builtin), nil:
            solver = .builtin(threshold: settings.threshold ?? ChallengeSolver.defaultThreshold)
        case .some(.none):
            solver = .none
        case .some(.command(let path, let timeout)):
            solver = .command(
                path: path, timeout: timeout.map(TimeInterval.init) ?? ChallengeSolverConfig.defaultCommandTimeout)
        }
        if let attempts = settings.maxAttempts { maxAttempts = attempts }
        if let pause = settings.pauseSeconds { onFail = .pause(TimeInterval(pause)) }
        if let stop = settings.stopAfter { stopAfter = min(stop, Self.safeStreak) }
    }

    /// The policy of `agent`: the first of its recipes (in the order given) that has a `challenge:` block.
    public static func forAgent(_ agent: String, in recipes: [Recipe]) -> ChallengePolicy {
        ChallengePolicy(settings: recipes.first { $0.agent.value == agent && $0.challenge != nil }?.challenge)
    }
}
