import ArgumentParser
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass keys add [--model] NAME`: stores a key read from stdin or a no-echo prompt.
struct KeysAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Store an agent's API key (or with --model a model key), read from stdin or a no-echo prompt.")

    @OptionGroup var options: KeysOptions

    @Argument(help: "The entry name, normally the agent name; with --model, the name recipes use for the model key.")
    var name: String

    @Flag(
        help: """
            Store a model key: the key of an OpenAI-compatible model server for a recipe's openai: \
            generator, not a Moltbook key. Its own namespace (an agent of the same name is another \
            entry); any printable secret without spaces, up to 4 KiB; never sent to Moltbook.
            """)
    var model = false

    @Option(
        help: """
            The API the key belongs to, remembered for claim, keys verify and run (default \
            https://www.moltbook.com/api/v1; a sandbox must be loopback). With --replace and no \
            --base-url the entry keeps its own. Not with --model.
            """)
    var baseURL: String?

    @Flag(help: "Overwrite an existing entry with the same name and kind (its key and, when given, its base URL).")
    var replace = false

    @Flag(help: "Print the result as JSON on stdout (README, \"Keychain\"); never the key.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            if model {
                guard baseURL == nil else {
                    throw KeysFailure(
                        .usage,
                        "--base-url does not apply to a model key: its server is the base_url of the recipe's "
                            + "openai: generator")
                }
                let session = try options.session()
                _ = try session.list()  // unlock (and fail on a bad passphrase) before asking for the key
                let key = try KeysSecretInput.readModelKey(named: name)
                try printReport(try session.addModelKey(name: name, key: key, replace: replace), json: json)
                return .ok
            }
            let url = try baseURL.map { try KeysEndpoint.checkedBaseURL($0) }  // before asking for anything
            let session = try options.session()
            _ = try session.list()  // unlock (and fail on a bad passphrase) before asking for the key
            let key = try KeysSecretInput.readKey(for: name)
            try printReport(try session.add(name: name, key: key, baseURL: url, replace: replace), json: json)
            return .ok
        }
    }
}
