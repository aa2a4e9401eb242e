import ArgumentParser
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass keys init`: creates an empty keychain.
struct KeysInit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init", abstract: "Create an empty keychain (mode 0600) under a new passphrase.")

    @OptionGroup var options: KeysOptions

    @Option(
        name: .customLong("scrypt-log2n"),
        help: ArgumentHelp("scrypt cost N = 2^n (default 18). For tests only: lower is weaker.", visibility: .hidden))
    var scryptLog2N: Int?

    @Flag(help: "Print the result as JSON on stdout (README, \"Keychain\"); never the passphrase.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let scrypt = try KeysSession.scryptParameters(log2N: scryptLog2N)
            if let scryptLog2N, scryptLog2N < 18 {
                printError(
                    "moltipass: warning: scrypt N = 2^\(scryptLog2N) is weaker than the default 2^18; tests only")
            }
            try printReport(try options.session().initialize(scrypt: scrypt), json: json)
            return .ok
        }
    }
}
