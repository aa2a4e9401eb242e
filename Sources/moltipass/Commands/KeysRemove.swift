import ArgumentParser
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass keys remove [--model] NAME`.
struct KeysRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Delete an agent's entry (or with --model a model key).")

    @OptionGroup var options: KeysOptions

    @Argument(help: "The entry to delete.")
    var name: String

    @Flag(help: "Delete the model key NAME; an agent of the same name stays.")
    var model = false

    @Flag(help: "Print the result as JSON on stdout (README, \"Keychain\"); never the key.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let session = try options.session()
            try printReport(try model ? session.removeModelKey(name: name) : session.remove(name: name), json: json)
            return .ok
        }
    }
}
