import ArgumentParser
import Foundation
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass challenge …`: verification challenges (lobster math) outside a run.
struct ChallengeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "challenge",
        abstract: "Work with Moltbook verification challenges.",
        subcommands: [ChallengeSolve.self]
    )

    /// No subcommand: the help on stderr, exit 64 (usage), as for `moltipass` alone.
    func run() async throws {
        FileHandle.standardError.write(Data((Moltipass.helpMessage(for: Self.self) + "\n").utf8))
        throw ExitCode(ExitStatus.usage.rawValue)
    }
}
