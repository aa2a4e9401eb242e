import ArgumentParser
import Foundation
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// Runs a command's work and turns any failure into its message on stderr and its exit status.
func reportingFailures(_ body: () async throws -> ExitStatus) async throws {
    let status: ExitStatus
    do {
        status = try await body()
    } catch let error as ValidationError {
        // Found while running (no state path, …): still a command-line problem.
        printError("moltipass: \(error.message)")
        throw ExitCode(ExitStatus.usage.rawValue)
    } catch {
        printError(ErrorReporting.message(for: error))
        throw ExitCode(ErrorReporting.exitStatus(for: error).rawValue)
    }
    if status != .ok { throw ExitCode(status.rawValue) }
}

/// One line on stderr.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// The report on stdout: its JSON object with `--json`, else its lines.
func printReport(_ report: some CommandReport, json: Bool) throws {
    print(json ? try report.json() : report.text)
}
