import ArgumentParser
import MoltipassKit

/// `moltipass keys remove NAME`.
struct KeysRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Delete an entry.")

    @OptionGroup var options: KeysOptions

    @Argument(help: "The entry to delete.")
    var name: String

    func run() async throws {
        try await reportingFailures {
            print(try options.session().remove(name: name))
            return .ok
        }
    }
}
