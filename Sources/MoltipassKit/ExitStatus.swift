/// Every exit code `moltipass` uses, in one place (documented in README.md, "Exit codes").
///
/// Numbers follow sysexits.h where one fits, so `cron` mail and shell scripts can tell the
/// classes apart: 0 and 3–6 are normal outcomes of a cron run; 64+ are problems to act on.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// The command did what it was asked (`run --once`: at least one action was executed).
    case ok = 0
    /// An unexpected failure (a bug, or an environment problem the message names).
    case failure = 1
    /// `run --once`: nothing was due.
    case nothingDue = 3
    /// `run --once`: actions were due but every one was deferred by a rate limit or server hint.
    case deferred = 4
    /// Another run holds the state lock for this account; this one did nothing.
    case locked = 5
    /// The account's writes are paused (failed challenge, suspension); nothing was sent.
    case paused = 6
    /// `run --once`: the server refused a write (or a step's selection) for good; the report
    /// line says why. Other writes may have been done.
    case writeFailed = 8
    /// `run --once`: a write's outcome is unknown (a 5xx, a lost connection, an answer the
    /// runner does not understand). It is not counted as done; the next run reads back.
    case uncertain = 9
    /// The command line was wrong (swift-argument-parser's own code).
    case usage = 64
    /// A recipe is invalid (`validate`, `lint`, `run`, `plan`); the diagnostics name file:line:column.
    case invalidRecipe = 65
    /// `lint` found problems of error severity in otherwise valid recipes.
    case lintFindings = 66
    /// The keychain could not be opened: wrong passphrase or modified file, unsafe permissions,
    /// no passphrase source, or the entry does not exist.
    case keychain = 67
    /// `challenge solve` declined to answer (confidence below the threshold).
    case declined = 68
    /// A name is already taken (an existing keychain entry without `--replace`, a registered agent name).
    case conflict = 73
    /// The server or network failed in a way that may pass (5xx, timeout, connection lost, rate limited).
    case transient = 75
    /// The agent's key was rejected or the account cannot write (invalid key, unclaimed, suspended).
    case authBroken = 77
}
