import ArgumentParser
import Logging
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass claim NAME [--wait]`: checks or waits for the owner's claim.
struct Claim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check whether an agent has been claimed by its owner, or wait for it with --wait.",
        discussion: """
            --wait polls /agents/status every few seconds for the first minute, then more slowly (30 s at most), \
            until claimed or --timeout. Exit 0 when claimed; 75 on timeout; 77 when pending (without --wait), \
            or when the key is invalid or the agent suspended.
            """)

    @OptionGroup var options: KeysOptions

    @Argument(help: "The keychain entry of the agent.")
    var name: String

    @Flag(help: "Poll until the agent is claimed or the timeout passes.")
    var wait = false

    @Flag(help: "Print the result as JSON on stdout (README, \"Keychain\"); never the key.")
    var json = false

    @Option(help: "How long --wait polls: 90s, 10m, 1h.")
    var timeout: String = "10m"

    @Option(
        help: ArgumentHelp(
            "Time between polls during the first minute (default 3s; a bare number is seconds).",
            valueName: "duration"))
    var pollInterval = "3s"

    @Option(
        help: """
            API base URL (default: the entry's, stored by register, keys add or keys verify --base-url; \
            else https://www.moltbook.com/api/v1).
            """)
    var baseURL: String?

    func validate() throws {
        guard ClaimBackoff.parseDuration(timeout) != nil else {
            throw ValidationError("--timeout \(timeout) is not a duration such as 90s, 10m or 1h")
        }
        guard let interval = DurationOption.seconds(pollInterval) else {
            throw ValidationError(DurationOption.problem("--poll-interval", pollInterval))
        }
        guard ClaimBackoff.initialRange.contains(interval) else {
            throw ValidationError("--poll-interval must be between 0.05 and 60 seconds")
        }
    }

    func run() async throws {
        try await reportingFailures {
            let flow = ClaimFlow(session: try options.session(), logger: Logger(label: "moltipass"))
            let waiter =
                wait
                ? ClaimWaiter(
                    backoff: ClaimBackoff(initial: DurationOption.seconds(pollInterval) ?? 3),
                    timeout: ClaimBackoff.parseDuration(timeout) ?? 600)
                : nil
            let (status, report) = try await flow.run(name: name, baseURL: baseURL, waiter: waiter) { printError($0) }
            if json {
                print(try report.json())
                if status != .ok { printError("moltipass: " + report.text) }
            } else if status == .ok {
                print(report.text)
            } else {
                printError("moltipass: " + report.text)
            }
            return status
        }
    }
}
