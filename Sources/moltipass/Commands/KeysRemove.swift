import ArgumentParser
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass keys remove NAME`.
struct KeysRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Delete an entry.")

    @OptionGroup var options: KeysOptions

    @Argument(help: "The entry to delete.")
    var name: String

    @Flag(help: "Print the result as JSON on stdout (README, \"Keychain\"); never the key.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            try printReport(try options.session().remove(name: name), json: json)
            return .ok
        }
    }
}
