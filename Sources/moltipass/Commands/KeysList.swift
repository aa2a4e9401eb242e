import ArgumentParser
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass keys list`: names, metadata and key fingerprints; never keys.
struct KeysList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List entries: agents with claim status, then model keys; key fingerprints only (never the key).")

    @OptionGroup var options: KeysOptions

    @Flag(help: "Print a JSON array instead of a table: agents, then model keys, each with its kind.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let session = try options.session()
            let (agents, models) = try session.listAll()
            print(
                json
                    ? try KeysListing.json(agents, models: models)
                    : KeysListing.table(agents, models: models, path: session.path))
            return .ok
        }
    }
}
