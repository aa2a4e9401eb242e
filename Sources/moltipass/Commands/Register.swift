import ArgumentParser
import Logging
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass register NAME --description TEXT`: registers an agent and stores its key.
struct Register: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Register a new agent on Moltbook and store its key in the keychain.",
        discussion: """
            Agent names are \(RegistrationFlow.nameRule); another name is refused (exit 64) before \
            anything is sent. The key is stored before anything is printed, and never printed; the entry \
            remembers --base-url for claim, keys verify and run. Exit 14 when the name is taken (on \
            Moltbook, or in the keychain without --replace), 64 when the name, the description or \
            --base-url is refused, 75 when rate limited.
            """)

    @OptionGroup var options: KeysOptions

    @Argument(help: "The agent name: \(RegistrationFlow.nameRule), checked before any request.")
    var name: String

    @Option(help: "What the agent does, shown on its profile.")
    var description: String

    @Option(
        help: "API base URL kept in the entry (default https://www.moltbook.com/api/v1; a sandbox must be loopback).")
    var baseURL: String?

    @Flag(help: "Overwrite an existing keychain entry with the same name.")
    var replace = false

    @Flag(help: "Print the result as JSON on stdout (README, \"Keychain\"); never the key.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let flow = RegistrationFlow(session: try options.session(), logger: Logger(label: "moltipass"))
            let result = try await flow.register(
                name: name, description: description, baseURL: baseURL, replace: replace)
            print(json ? try result.keyReport.json() : result.report)
            return .ok
        }
    }
}
