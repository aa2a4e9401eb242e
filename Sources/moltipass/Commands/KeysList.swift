import ArgumentParser
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass keys list`: names, metadata and key fingerprints; never keys.
struct KeysList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List entries: name, claim status, key fingerprint (never the key).")

    @OptionGroup var options: KeysOptions

    @Flag(help: "Print a JSON array instead of a table.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let session = try options.session()
            let entries = try session.list()
            print(json ? try KeysListing.json(entries) : KeysListing.table(entries, path: session.path))
            return .ok
        }
    }
}
