/// What to do with occurrences that passed while the runner was not running.
public enum MissedRunPolicy: Sendable, Equatable {
    /// Drop them; wait for the next occurrence. The default.
    case skip
    /// Run the latest missed occurrence once, if it is at most `within` seconds old.
    case runOnce(within: Int)
    /// Run the latest `max` missed occurrences, oldest first.
    case catchUp(max: Int)
}
