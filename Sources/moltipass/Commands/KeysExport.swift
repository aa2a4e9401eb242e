import ArgumentParser
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass keys export NAME --reveal`: prints a key, for migration only.
struct KeysExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Print an entry's API key (only with --reveal), for migration.")

    @OptionGroup var options: KeysOptions

    @Argument(help: "The entry to export.")
    var name: String

    @Flag(help: "Really print the key on stdout.")
    var reveal = false

    @Flag(
        help: """
            With --reveal, print one JSON object on stdout: name, key, key_fingerprint, base_url, keychain \
            (README, "Keychain"). Without --reveal it is refused like the plain form.
            """)
    var json = false

    func run() async throws {
        try await reportingFailures {
            let export = try options.session().export(name: name, reveal: reveal)
            if json {
                print(try ReportJSON.string(export))
            } else {
                export.key.withRawValue { print($0) }
            }
            return .ok
        }
    }
}
