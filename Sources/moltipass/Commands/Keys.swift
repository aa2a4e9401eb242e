import ArgumentParser
import Foundation
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass keys …`: the encrypted keychain that holds the agents' API keys.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the encrypted keychain of agent API keys and model keys.",
        discussion: """
            Keys are read from stdin or a no-echo prompt, never from the command line. The passphrase \
            comes from --passphrase-file, MOLTIPASS_PASSPHRASE_FILE, MOLTIPASS_PASSPHRASE or the terminal, \
            in that order. An entry remembers the API its key belongs to (register or keys add --base-url, \
            or a keys verify --base-url that the server there answered); claim, keys verify and run use it. \
            Model keys (keys add --model NAME) are the keys of OpenAI-compatible model servers for a recipe's \
            openai: generator: a namespace of their own that register, claim, keys verify, keys export and the \
            agents of run never see.
            """,
        subcommands: [
            KeysInit.self, KeysAdd.self, KeysList.self, KeysRemove.self, KeysPasswd.self, KeysVerify.self,
            KeysExport.self,
        ]
    )

    /// No subcommand: the help on stderr, exit 64 (usage), as for `moltipass` alone.
    func run() async throws {
        FileHandle.standardError.write(Data((Moltipass.helpMessage(for: Self.self) + "\n").utf8))
        throw ExitCode(ExitStatus.usage.rawValue)
    }
}
