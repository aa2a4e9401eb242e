/// Every exit code `moltipass` uses, in one place (documented in README.md, "Exit codes").
///
/// The scheme follows two conventions, and the reasons are operational:
///
/// - **0 for every outcome that is not a failure.** A cron run that finds nothing due, whose
///   writes are deferred by a limit, that finds the agent held by another run, or whose agent an
///   operator paused (`moltipass pause`) did its job. Exiting non-zero there made every
///   deployment wrap the command, and a Kubernetes CronJob counted idle runs as failed jobs. The
///   detailed outcome stays available: `run --once --detailed-exitcode` exits 3, 4, 5 or 6 for
///   those outcomes (the numbers earlier versions used, so scripts can opt back in; terraform's
///   `plan -detailed-exitcode` is the model), and `run --once --json` names it in `outcome`.
/// - **Codes 64 and above mean what sysexits.h says**, so `cron` mail, service managers and
///   shell scripts read them the usual way: 64 EX_USAGE, 65 EX_DATAERR, 75 EX_TEMPFAIL,
///   77 EX_NOPERM. Moltipass's own failures that have no sysexits meaning use small numbers
///   below 64 (lint findings, the keychain, a declined challenge, a name conflict), instead of
///   borrowing 66 EX_NOINPUT, 67 EX_NOUSER, 68 EX_NOHOST or 73 EX_CANTCREAT, which say other things.
///
/// A pause the operator did not ask for (a failed challenge, a streak of them, a suspension, the
/// auth breaker) is a failure: it needs attention, so it exits 6 with or without the flag.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// The command did what it was asked. `run --once`: every outcome that is not a failure
    /// (something done, nothing due, deferred, locked by another run, paused by the operator).
    case ok = 0
    /// An unexpected failure (a bug, or an environment problem the message names).
    case failure = 1
    /// `run --once --detailed-exitcode`: nothing was due.
    case nothingDue = 3
    /// `run --once --detailed-exitcode`: actions were due but every one was deferred by a rate
    /// limit or server hint.
    case deferred = 4
    /// `run --once --detailed-exitcode`: another run holds the agent's lease; this one did nothing for it.
    case locked = 5
    /// `run --once`: an agent's writes are paused by the server or a failed challenge (always), or
    /// by the operator (only with `--detailed-exitcode`); nothing was sent for it.
    case paused = 6
    /// `run --once`: a due post found its content queue with no item left (someone must add
    /// items); other writes may have been done.
    case queueEmpty = 7
    /// `run --once`: the server refused a write (or a step's selection) for good; the report
    /// line says why. Other writes may have been done.
    case writeFailed = 8
    /// `run --once`: a write's outcome is unknown (a 5xx, a lost connection, an answer the
    /// runner does not understand). It is not counted as done; the next run reads back.
    case uncertain = 9
    /// `plan --fail-on`: a row of the plan has an outcome the flag names.
    case planFindings = 10
    /// `lint` found problems of error severity in otherwise valid recipes.
    case lintFindings = 11
    /// The keychain could not be opened: wrong passphrase or modified file, unsafe permissions,
    /// no passphrase source, or the entry does not exist.
    case keychain = 12
    /// `challenge solve` declined to answer (confidence below the threshold).
    case declined = 13
    /// A name is already taken (an existing keychain entry without `--replace`, a registered agent name).
    case conflict = 14
    /// `generate`: a check refused the generated text (its length, a secret, the deny-list, the
    /// duplicate guard); the report says which and why.
    case textRefused = 15
    /// `generate`: the generator declined the occurrence (a command's exit code 3).
    case generatorSkipped = 16
    /// `generate`: the generator failed (the program crashed, timed out or printed nothing usable;
    /// the model server failed or refused; the model key could not be had).
    case generatorFailed = 17
    /// The command line was wrong (EX_USAGE; swift-argument-parser's own code).
    case usage = 64
    /// A recipe is invalid (`validate`, `lint`, `run`, `plan`); the diagnostics name file:line:column (EX_DATAERR).
    case invalidRecipe = 65
    /// The server or network failed in a way that may pass: 5xx, timeout, connection lost, rate
    /// limited (EX_TEMPFAIL).
    case transient = 75
    /// The agent's key was rejected or the account cannot write: invalid key, unclaimed,
    /// suspended (EX_NOPERM).
    case authBroken = 77
}
