import ArgumentParser
import Foundation
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass challenge solve`: answer one challenge text from stdin with the chosen solver.
struct ChallengeSolve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "solve",
        abstract: "Solve a challenge text read from stdin; print the answer with two decimals.",
        discussion: """
            Exit status: 0 answered (the answer on stdout), 13 declined (the reason on stderr), 64 usage; \
            with --json one object on stdout either way. \
            A command solver gets the text on stdin and must print one number and exit 0 within --timeout.
            """)

    @Option(help: "builtin, builtin:THRESHOLD, none or command:PATH.")
    var solver = "builtin"

    @Option(help: "Confidence below which the built-in solver declines (0 to 1, default 0.7).")
    var threshold: Double?

    @Option(
        help: ArgumentHelp(
            "How long a command solver may run before it is killed (default 10s; a bare number is seconds).",
            valueName: "duration"))
    var timeout: String?

    /// `--timeout` in seconds (nil: not given, or not a duration; `validate` refuses the latter).
    var timeoutSeconds: Double? { timeout.flatMap { DurationOption.seconds($0) } }

    @Flag(help: "Also print the confidence and the reading on stderr.")
    var explain = false

    @Flag(
        help: """
            Print one JSON object on stdout, answered or declined (docs/challenges.md): result, answer, \
            confidence, operation, operands, reason. Messages and exit status as without it.
            """)
    var json = false

    func validate() throws {
        if let timeout, DurationOption.seconds(timeout) == nil {
            throw ValidationError(DurationOption.problem("--timeout", timeout))
        }
        do {
            _ = try ChallengeSolverConfig.parse(solver, threshold: threshold, timeout: timeoutSeconds)
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        let config = try ChallengeSolverConfig.parse(solver, threshold: threshold, timeout: timeoutSeconds)
        let input = FileHandle.standardInput.readDataToEndOfFile()
        let text = String(decoding: input.prefix(65_536), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            FileHandle.standardError.write(Data("moltipass: no challenge text on stdin\n".utf8))
            throw ExitCode(ExitStatus.usage.rawValue)
        }
        let outcome = await ChallengeSolveOutcome.solve(text, with: config)
        if json {
            print(try ReportJSON.string(outcome))
        } else if let answer = outcome.answer {
            print(answer)
        }
        if let message = outcome.message(explain: explain) {
            FileHandle.standardError.write(Data((message + "\n").utf8))
        }
        if outcome.exitStatus != .ok { throw ExitCode(outcome.exitStatus.rawValue) }
    }
}
