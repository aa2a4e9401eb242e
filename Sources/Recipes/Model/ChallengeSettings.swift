/// The recipe's `challenge:` block: how the agent answers Moltbook's verification challenges.
///
/// ```yaml
/// challenge:
///   solver: builtin          # builtin | none | {command: /path/to/solver, timeout: 10s}
///   threshold: 0.8           # builtin only: the confidence below which it declines
///   max_attempts: 1          # answers sent per challenge code
///   on_fail:
///     pause: 6h              # pause the agent's writes after a failed challenge
///     stop_after: 2          # failures in a row that stop the agent until an operator resumes it
/// ```
///
/// Every key is optional; the engine's defaults (built-in solver, threshold 0.7, one attempt, six-hour pause)
/// fill the rest. The values are checked here; turning them into the engine's policy is MoltipassEngine's job.
public struct ChallengeSettings: Sendable, Equatable {
    /// Which solver answers.
    public enum Solver: Sendable, Equatable {
        case builtin
        case none
        /// An operator's program: the text on stdin, one number on stdout, killed after `timeout` seconds.
        case command(path: String, timeout: Int?)
    }

    public var solver: Solver?
    public var threshold: Double?
    public var maxAttempts: Int?
    /// Seconds the agent's writes pause after a failed challenge.
    public var pauseSeconds: Int?
    /// Failed challenges in a row after which the agent stops until an operator resumes it.
    public var stopAfter: Int?
    /// Where `challenge:` is written.
    public var mark: Mark

    public init(
        solver: Solver? = nil, threshold: Double? = nil, maxAttempts: Int? = nil, pauseSeconds: Int? = nil,
        mark: Mark
    ) {
        self.solver = solver
        self.threshold = threshold
        self.maxAttempts = maxAttempts
        self.pauseSeconds = pauseSeconds
        self.mark = mark
    }
}
