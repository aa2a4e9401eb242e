import ArgumentParser
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass keys passwd`: re-encrypts the keychain under a new passphrase.
struct KeysPasswd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd", abstract: "Re-encrypt the keychain under a new passphrase.")

    @OptionGroup var options: KeysOptions

    @Option(
        help: ArgumentHelp("A file holding the new passphrase (mode 0600 or 0400); else a prompt.", valueName: "path"))
    var newPassphraseFile: String?

    @Flag(help: "Print the result as JSON on stdout (README, \"Keychain\"); never the passphrase.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            try printReport(try options.session().changePassphrase(newPassphraseFile: newPassphraseFile), json: json)
            return .ok
        }
    }
}
