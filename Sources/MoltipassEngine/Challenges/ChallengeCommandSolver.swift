import ChallengeSolver
import Foundation
import Generation
import MoltbookAPI

#if canImport(Glibc)
    import Glibc
#endif

/// An operator's solver program: gets the challenge text on stdin, must print one number on stdout and exit 0
/// within the timeout. Anything else (a non-zero exit, no number, extra text, a timeout, a missing program) is a
/// decline with the reason; the program and its process group are killed (SIGTERM, then SIGKILL a second later) at
/// the timeout.
public struct ChallengeCommandSolver: Sendable {
    public var path: String
    public var timeout: TimeInterval
    /// Output beyond this many bytes is ignored (and makes the answer garbage).
    static let outputLimit = 4096

    public init(path: String, timeout: TimeInterval) {
        self.path = path
        self.timeout = timeout
    }

    public func solve(_ text: String) async -> Solution {
        let path = path
        let timeout = timeout
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Self.run(path: path, timeout: timeout, text: text))
            }
        }
    }

    /// Runs the program and judges its output (blocking; called off the cooperative pool).
    ///
    /// Through `Spawn` (posix_spawn), not `Foundation.Process`, whose `run()` crashes intermittently on Linux
    /// (swift-corelibs-foundation PR #5472). The program leads a process group of its own, so the timeout's
    /// SIGTERM and SIGKILL reach its children too. It gets this process's environment without Moltipass's own
    /// variables (`MOLTIPASS_*`, `MOLTBOOK_*`: the keychain's passphrase, the state's place), which are no
    /// business of a solver: `solverEnvironment`.
    static func run(path: String, timeout: TimeInterval, text: String) -> Solution {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            return .declined(reason: "solver command \(path) is not an executable file", confidence: 0)
        }
        // A program that never reads stdin neither blocks nor kills us (the loop writes as the pipe takes it and
        // takes a closed pipe as EPIPE). Once it has exited, what it started goes with it, as for a generator:
        // its group, and a `setsid` grandchild by its tag (issue 34: scripts/reliability/hostile-programs found
        // a solver's children alive after the run). "Text file busy" is retried by `Spawn` itself.
        let limits = Spawn.Limits(
            timeout: timeout, killGrace: 1, maxOutput: outputLimit, maxErrors: 4096, killGroupOnExit: true,
            drainAfterExit: 1)
        let completed: Spawn.Completed
        do {
            completed = try Spawn.run(
                path: path, arguments: [path],
                environment: Spawn.environment(solverEnvironment(ProcessInfo.processInfo.environment)),
                input: Data(text.utf8), limits)
        } catch {
            return .declined(reason: "solver command \(error.description)", confidence: 0)
        }
        if completed.timedOut {
            return .declined(
                reason: "solver command \(path) did not answer within \(formatSeconds(timeout)) s and was killed",
                confidence: 0)
        }
        let printed = String(decoding: completed.output.prefix(outputLimit), as: UTF8.self)
        let notANumber = {
            let shown = Redactor.redact(printed.trimmingCharacters(in: .whitespacesAndNewlines)).prefix(60)
            return Solution.declined(reason: "solver command \(path) printed '\(shown)', not one number", confidence: 0)
        }
        // More output than any number: garbage, whatever the exit (the program was killed for it).
        if completed.outputExceeded { return notANumber() }
        guard completed.termination == .exited(0) else {
            let detail =
                String(decoding: completed.errors.prefix(300), as: UTF8.self)
                .split(separator: "\n").first.map { ": \(Redactor.redact(String($0)))" } ?? ""
            let how: String
            switch completed.termination {
            case .exited(let status): how = "exited with status \(status)"
            case .signalled(let signal): how = "was killed by signal \(signal)"
            }
            return .declined(reason: "solver command \(path) \(how)\(detail)", confidence: 0)
        }
        guard let value = AnswerFormat.parse(printed) else { return notANumber() }
        return .answer(AnswerFormat.twoDecimals(value), confidence: 1, operation: nil, operands: [])
    }

    static func formatSeconds(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    /// `environment` without Moltipass's own variables (`MOLTIPASS_*`, `MOLTBOOK_*`).
    static func solverEnvironment(_ environment: [String: String]) -> [String: String] {
        environment.filter { !$0.key.hasPrefix("MOLTIPASS_") && !$0.key.hasPrefix("MOLTBOOK_") }
    }
}
