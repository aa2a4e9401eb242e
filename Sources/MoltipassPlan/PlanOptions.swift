import Foundation
import MoltbookSandbox
import MoltipassEngine

/// What `moltipass plan` simulates: the horizon, the seed and the scenario.
public struct PlanOptions: Sendable {
    /// The first simulated instant (`--from`, else the caller's now).
    public var start: Date
    /// How long to simulate (`--for`).
    public var horizon: TimeInterval
    /// Seeds the sandbox, the feed generator and the fault dice.
    public var seed: UInt64 = 1
    /// The limits the simulated server enforces (`--server-profile`).
    public var serverProfile: PlanServerProfile = .default
    /// Probability that creating a post or comment returns a verification challenge.
    public var challengeRate: Double = 0
    /// Probability that a request meets a transient fault (5xx, dropped connection).
    public var faultRate: Double = 0
    /// The simulated server refuses repeated content and suspends for it (`--enforce-duplicates`).
    public var enforceDuplicates = false
    /// Register the simulated agents less than 24 hours before `start` (first-day limits).
    public var newAgent = false
    /// Other agents the simulated server plays (issue 22: comments, replies, mentions, DMs to the
    /// agents whose recipes answer); nil: 3 when a recipe answers, else none.
    public var simulatedAgents: Int?
    public static let defaultSimulatedAgents = 3
    /// Feed posts from a fixture instead of the generator.
    public var feed: PlanFeed?
    /// Posts the generator writes per submolt per hour.
    public var feedPostsPerHour: Double = 1
    /// Why the state file was not copied although it exists (`--from` in the future); shown
    /// in the result's scenario.
    public var stateSkipped: String?
    /// Stops a runaway simulation.
    public var maxPasses = 2_000_000
    /// Whether the simulated server's answers travel as JSON bytes the client parses, as over
    /// HTTP, instead of as the trees they are made from. The plan is the same either way (a test
    /// compares them); bytes only cost time. Not a command-line flag.
    public var serializedBodies = false

    public init(start: Date, horizon: TimeInterval) {
        self.start = start
        self.horizon = horizon
    }

    public var end: Date { start.addingTimeInterval(horizon) }
}

/// The limits of the simulated server.
public struct PlanServerProfile: Sendable, Equatable {
    public var name: String
    public var limits: SandboxLimitProfile
    public var newAgentLimits: SandboxLimitProfile

    public init(name: String, limits: SandboxLimitProfile, newAgentLimits: SandboxLimitProfile) {
        self.name = name
        self.limits = limits
        self.newAgentLimits = newAgentLimits
    }

    /// The sandbox defaults: today's strictest documented numbers (what the local profile assumes).
    public static let `default` = PlanServerProfile(name: "default", limits: .established, newAgentLimits: .newAgent)

    /// A server twice as strict: cooldowns doubled, counts halved.
    public static let strict = PlanServerProfile(
        name: "strict", limits: tightened(.established), newAgentLimits: tightened(.newAgent))

    /// A server looser than the documentation: cooldowns halved, counts doubled.
    public static let loose = PlanServerProfile(
        name: "loose", limits: loosened(.established), newAgentLimits: loosened(.newAgent))

    /// `strict`, `default`, `loose`, or a JSON file with the sandbox's `limits` and
    /// `new_agent_limits` keys (each optional, snake_case as in `docs/sandbox.md`).
    public static func named(_ text: String) throws -> PlanServerProfile {
        switch text {
        case "strict": return .strict
        case "default": return .default
        case "loose": return .loose
        default:
            guard let data = FileManager.default.contents(atPath: text) else {
                throw PlanError("--server-profile: \(text) is neither strict, default, loose nor a readable JSON file")
            }
            do {
                let config = try SandboxConfig().updated(withJSON: data)
                return PlanServerProfile(name: text, limits: config.limits, newAgentLimits: config.newAgentLimits)
            } catch {
                throw PlanError("--server-profile: \(text) is not a sandbox limits JSON object: \(error)")
            }
        }
    }

    static func tightened(_ profile: SandboxLimitProfile) -> SandboxLimitProfile {
        var result = profile
        result.postCooldownSeconds = profile.postCooldownSeconds.map { $0 * 2 }
        result.commentCooldownSeconds = profile.commentCooldownSeconds.map { $0 * 2 }
        result.commentsPerDay = profile.commentsPerDay.map { max(1, $0 / 2) }
        result.readsPerWindow = profile.readsPerWindow.map { max(1, $0 / 2) }
        result.writesPerWindow = profile.writesPerWindow.map { max(1, $0 / 2) }
        result.submoltCooldownSeconds = profile.submoltCooldownSeconds.map { $0 * 2 }
        return result
    }

    static func loosened(_ profile: SandboxLimitProfile) -> SandboxLimitProfile {
        var result = profile
        result.postCooldownSeconds = profile.postCooldownSeconds.map { $0 / 2 }
        result.commentCooldownSeconds = profile.commentCooldownSeconds.map { $0 / 2 }
        result.commentsPerDay = profile.commentsPerDay.map { $0 * 2 }
        result.readsPerWindow = profile.readsPerWindow.map { $0 * 2 }
        result.writesPerWindow = profile.writesPerWindow.map { $0 * 2 }
        result.submoltCooldownSeconds = profile.submoltCooldownSeconds.map { $0 / 2 }
        return result
    }
}

/// A problem with `plan`'s input (a flag, a fixture).
public struct PlanError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension PlanOptions {
    /// `7d`, `12h`, `90m`, `1d12h`, `3600s` → seconds; nil when malformed or zero.
    public static func duration(_ text: String) -> TimeInterval? {
        var total: TimeInterval = 0
        var digits = ""
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
                continue
            }
            guard let value = Double(digits) else { return nil }
            switch character {
            case "d": total += value * 86_400
            case "h": total += value * 3_600
            case "m": total += value * 60
            case "s": total += value
            default: return nil
            }
            digits = ""
        }
        guard digits.isEmpty, total > 0 else { return nil }
        return total
    }
}
