import Foundation

extension RecipeDecoder {
    static let challengeKeys = ["solver", "threshold", "max_attempts", "on_fail"]
    static let commandSolverKeys = ["command", "timeout"]

    /// `challenge:`: solver, threshold, max_attempts, on_fail. Bounds match the engine's policy checks.
    func decodeChallenge(_ node: YAMLNode) -> ChallengeSettings? {
        guard let fields = mapping(node, allowed: Self.challengeKeys, what: "challenge") else { return nil }
        var settings = ChallengeSettings(mark: node.mark)
        if let solver = fields["solver"] {
            settings.solver = decodeSolver(solver)
        }
        if let threshold = fields["threshold"] {
            if let value = threshold.scalar.flatMap(Double.init), threshold.scalarStyle == .plain,
                (0...1).contains(value)
            {
                settings.threshold = value
            } else {
                error(
                    threshold.mark, code: "value",
                    "threshold is \(threshold.scalar.map { "`\($0)`" } ?? threshold.kindDescription)",
                    expected: "a number from 0 to 1, like 0.8")
            }
            if let solver = settings.solver, solver != .builtin {
                error(
                    threshold.mark, code: "value", "threshold applies to the built-in solver only",
                    expected: "`solver: builtin`, or no `threshold:`")
            }
        }
        if let attempts = fields["max_attempts"] {
            settings.maxAttempts = integer(attempts, in: 1...5, what: "max_attempts")
        }
        if let onFail = fields["on_fail"],
            let failFields = mapping(onFail, allowed: ["pause", "stop_after"], what: "on_fail")
        {
            if let stop = failFields["stop_after"] {
                settings.stopAfter = integer(stop, in: 1...9, what: "stop_after")
            }
            if let pause = failFields["pause"] {
                settings.pauseSeconds = duration(
                    pause, what: "on_fail pause", in: 60...(7 * 86_400), expected: "from 1m to 7d")
            }
        }
        return settings
    }

    /// `builtin`, `none`, or `{command: PATH, timeout: 10s}`.
    func decodeSolver(_ node: YAMLNode) -> ChallengeSettings.Solver? {
        if let text = node.scalar, !node.isNull {
            switch text {
            case "builtin": return .builtin
            case "none": return ChallengeSettings.Solver.none
            default:
                error(
                    node.mark, code: "value", "unknown solver `\(text)`",
                    expected: "builtin, none, or a mapping `{command: /path/to/solver}`",
                    suggestion: Suggest.closest(to: text, among: ["builtin", "none", "command"]))
                return nil
            }
        }
        guard let fields = mapping(node, allowed: Self.commandSolverKeys, required: ["command"], what: "solver")
        else { return nil }
        guard let path = fields["command"].flatMap({ string($0, what: "command") }) else { return nil }
        var timeout: Int?
        if let node = fields["timeout"], let seconds = duration(node, what: "timeout") {
            if (1...300).contains(seconds) {
                timeout = seconds
            } else {
                error(node.mark, code: "value", "timeout \(seconds)s is out of range", expected: "from 1s to 5m")
            }
        }
        return .command(path: path, timeout: timeout)
    }
}
