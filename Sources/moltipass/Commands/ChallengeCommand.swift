import ArgumentParser

/// `moltipass challenge …`: verification challenges (lobster math) outside a run.
struct ChallengeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "challenge",
        abstract: "Work with Moltbook verification challenges.",
        subcommands: [ChallengeSolve.self]
    )
}
