import ArgumentParser
import Foundation
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass validate FILE…`: are these valid recipes? Exit 0 if all are, 65 with every diagnostic if not.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check that recipes are valid; report every problem as file:line:column.",
        discussion: "Exit status: 0 all valid, 65 a file is invalid or unreadable, 64 usage.")

    @Flag(help: "Print a JSON report on stdout instead of text.")
    var json = false

    @Argument(help: "Recipe files.")
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one recipe file") }
    }

    func run() throws {
        let report = RecipeCheck.validate(files)
        report.write(json: json)
        if report.exitStatus != .ok { throw ExitCode(report.exitStatus.rawValue) }
    }
}
