/// Every exit code `moltipass` uses, in one place (documented in README.md, "Exit codes").
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// The command did what it was asked.
    case ok = 0
    /// An unexpected failure (a bug, or an environment problem the message names).
    case failure = 1
    /// The server or network failed in a way that may pass (5xx, timeout, connection lost).
    case transient = 75
    /// The agent's key was rejected or the account cannot write (invalid key, suspended, unclaimed).
    case authBroken = 77
    /// The command line was wrong (swift-argument-parser's own code).
    case usage = 64
}
