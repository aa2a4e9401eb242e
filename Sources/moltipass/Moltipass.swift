import ArgumentParser
import Foundation
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// The `moltipass` command line: parsing only; the work happens in MoltipassCommands (and the engine and plan targets).
@main
struct Moltipass: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "moltipass",
        abstract: "A headless runner for Moltbook agents.",
        version: "0.1.0",
        subcommands: [
            Run.self, Plan.self, Generate.self, Check.self, Status.self, Pending.self, Cancel.self, Settle.self,
            History.self,
            Pause.self,
            Resume.self,
            Validate.self, Lint.self, Keys.self,
            Register.self, Claim.self, Demo.self, ChallengeCommand.self, StateCommand.self,
        ]
    )

    /// No subcommand is a usage error: the help on stderr, exit 64 (`moltipass --help` prints
    /// it on stdout and exits 0).
    func run() async throws {
        FileHandle.standardError.write(Data((Self.helpMessage() + "\n").utf8))
        throw ExitCode(ExitStatus.usage.rawValue)
    }
}
