import ArgumentParser
import Logging
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass keys verify NAME`: asks Moltbook whether the stored key works.
struct KeysVerify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a stored key against /agents/me and /agents/status: claimed, pending, invalid or suspended.",
        discussion: """
            Records the claim status in the entry. Exit 0 when claimed; 77 when pending, invalid or suspended; \
            75 when Moltbook cannot be reached.
            """)

    @OptionGroup var options: KeysOptions

    @Argument(help: "The entry to verify.")
    var name: String

    @Flag(help: "Print the result as JSON on stdout (README, \"Keychain\"); never the key.")
    var json = false

    @Option(
        help: """
            API base URL (default: the entry's, else https://www.moltbook.com/api/v1; a sandbox must be \
            loopback). When the server there knows the key (claimed or pending), the URL is stored in the \
            entry for claim and run.
            """)
    var baseURL: String?

    func run() async throws {
        try await reportingFailures {
            let verifier = KeysVerifier(session: try options.session(), logger: Logger(label: "moltipass"))
            let (outcome, report) = try await verifier.verify(name: name, baseURL: baseURL)
            try printReport(report, json: json)
            return outcome.exitStatus
        }
    }
}
