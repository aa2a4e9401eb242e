import ChallengeSolver
import Foundation

/// Which solver answers verification challenges: `builtin` (with a confidence threshold), an operator's
/// `command` (text on stdin, one number on stdout, bounded time), or `none` (always declines, so the policy
/// pauses the account instead of guessing).
///
/// Text form (command line, recipes): `builtin`, `builtin:0.8`, `none`, `command:/path/to/solver`.
/// JSON form: `{"solver":"builtin","threshold":0.7}`, `{"solver":"command","path":"…","timeout":10}`,
/// `{"solver":"none"}`.
public enum ChallengeSolverConfig: Sendable, Equatable {
    case builtin(threshold: Double)
    case command(path: String, timeout: TimeInterval)
    case none

    /// Seconds a command solver may run before it is killed, unless configured.
    public static let defaultCommandTimeout: TimeInterval = 10
    /// The configuration when nothing is set: the built-in solver at its default threshold.
    public static let `default` = ChallengeSolverConfig.builtin(threshold: ChallengeSolver.defaultThreshold)

    /// A problem with a solver setting, saying what is accepted.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Parses the text form; `threshold` and `timeout` override the defaults (and a `builtin:X` threshold).
    public static func parse(
        _ text: String, threshold: Double? = nil, timeout: TimeInterval? = nil
    ) throws(ParseError) -> ChallengeSolverConfig {
        if let threshold, !(0...1).contains(threshold) {
            throw ParseError(message: "threshold must be between 0 and 1, got \(threshold)")
        }
        if let timeout, !(timeout > 0 && timeout <= 300) {
            throw ParseError(message: "timeout must be more than 0 and at most 300 seconds, got \(timeout)")
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "none" { return .none }
        if trimmed == "builtin" { return .builtin(threshold: threshold ?? ChallengeSolver.defaultThreshold) }
        if trimmed.hasPrefix("builtin:") {
            guard let value = Double(trimmed.dropFirst("builtin:".count)), (0...1).contains(value) else {
                throw ParseError(message: "builtin:X needs a threshold between 0 and 1, got '\(trimmed)'")
            }
            return .builtin(threshold: threshold ?? value)
        }
        if trimmed.hasPrefix("command:") {
            let path = String(trimmed.dropFirst("command:".count))
            guard !path.isEmpty else { throw ParseError(message: "command: needs the path of an executable") }
            return .command(path: path, timeout: timeout ?? defaultCommandTimeout)
        }
        throw ParseError(message: "unknown solver '\(text)': use builtin, builtin:THRESHOLD, none or command:PATH")
    }

    /// The text form (`builtin:0.7`, `none`, `command:/path`); the command timeout is not part of it.
    public var textForm: String {
        switch self {
        case .builtin(let threshold): "builtin:\(threshold)"
        case .command(let path, _): "command:\(path)"
        case .none: "none"
        }
    }

    /// Solves `text` with this solver. A command solver runs off the cooperative pool and is killed at its
    /// timeout; any failure of it is a decline, never an error.
    public func solve(_ text: String) async -> Solution {
        switch self {
        case .builtin(let threshold):
            return ChallengeSolver(threshold: threshold).solve(text)
        case .none:
            return .declined(reason: "the challenge solver is set to none", confidence: 0)
        case .command(let path, let timeout):
            return await ChallengeCommandSolver(path: path, timeout: timeout).solve(text)
        }
    }
}

extension ChallengeSolverConfig: Codable {
    private enum CodingKeys: String, CodingKey {
        case solver, threshold, path, timeout
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .solver)
        switch kind {
        case "builtin":
            let threshold = try container.decodeIfPresent(Double.self, forKey: .threshold)
            self = .builtin(threshold: threshold ?? ChallengeSolver.defaultThreshold)
        case "command":
            let path = try container.decode(String.self, forKey: .path)
            let timeout = try container.decodeIfPresent(Double.self, forKey: .timeout)
            self = .command(path: path, timeout: timeout ?? Self.defaultCommandTimeout)
        case "none":
            self = .none
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .solver, in: container, debugDescription: "unknown solver '\(kind)': builtin, command or none")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .builtin(let threshold):
            try container.encode("builtin", forKey: .solver)
            try container.encode(threshold, forKey: .threshold)
        case .command(let path, let timeout):
            try container.encode("command", forKey: .solver)
            try container.encode(path, forKey: .path)
            try container.encode(timeout, forKey: .timeout)
        case .none:
            try container.encode("none", forKey: .solver)
        }
    }
}
