import Foundation
import Logging
import MoltipassEngine

/// What `run --once` prints and how it exits, decided from its report and flags.
///
/// Quiet on success: the summary line goes to stderr only when the run failed (a non-zero exit
/// without `--detailed-exitcode`), or when asked for (`--verbose`, or `--log-level` info or
/// lower), so a crontab line mails problems only. `--json` carries the detailed outcome either way.
public struct RunOnceOutput: Encodable, Sendable {
    public let report: RunReport
    /// `--detailed-exitcode`.
    public let detailed: Bool

    public init(report: RunReport, detailed: Bool) {
        self.report = report
        self.detailed = detailed
    }

    /// The outcome, counting every pause (the operator's too): `--json`'s `outcome`.
    public var outcome: RunReport.Outcome { report.outcome(operatorPauses: true) }

    /// The process's exit status.
    public var exitStatus: ExitStatus { report.exitStatus(detailed: detailed) }

    /// Whether the summary line is printed on stderr at log level `level`.
    public func printsSummary(level: Logger.Level) -> Bool {
        level <= .info || !report.outcome(operatorPauses: false).isSuccess
    }

    enum Keys: String, CodingKey { case outcome }

    /// The report's fields, plus `outcome`.
    public func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(outcome.rawValue, forKey: .outcome)
    }
}
