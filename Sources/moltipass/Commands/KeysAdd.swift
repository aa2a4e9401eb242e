import ArgumentParser
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass keys add NAME`: stores a key read from stdin or a no-echo prompt.
struct KeysAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Store an agent's API key, read from stdin (or a no-echo prompt on a terminal).")

    @OptionGroup var options: KeysOptions

    @Argument(help: "The entry name, normally the agent name.")
    var name: String

    @Option(
        help: """
            The API the key belongs to, remembered for claim, keys verify and run (default \
            https://www.moltbook.com/api/v1; a sandbox must be loopback). With --replace and no \
            --base-url the entry keeps its own.
            """)
    var baseURL: String?

    @Flag(help: "Overwrite an existing entry with the same name (its key and, when given, its base URL).")
    var replace = false

    @Flag(help: "Print the result as JSON on stdout (README, \"Keychain\"); never the key.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let url = try baseURL.map { try KeysEndpoint.checkedBaseURL($0) }  // before asking for anything
            let session = try options.session()
            _ = try session.list()  // unlock (and fail on a bad passphrase) before asking for the key
            let key = try KeysSecretInput.readKey(for: name)
            try printReport(try session.add(name: name, key: key, baseURL: url, replace: replace), json: json)
            return .ok
        }
    }
}
