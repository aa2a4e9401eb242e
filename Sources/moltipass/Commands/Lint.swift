import ArgumentParser
import Foundation
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan

/// `moltipass lint FILE…`: validate, then check schedules against the rate limits, sizes, queues and secrets.
struct Lint: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Validate recipes, then check them against rate limits, size limits, queues and secrets.",
        discussion: "Exit status: 0 valid with at most warnings, 65 a file is invalid or unreadable, "
            + "11 an error-severity finding, 64 usage.")

    @Option(help: "How far ahead to simulate schedules (7d, 36h, ...; at most a year).")
    var horizon = "7d"

    @Option(help: "Simulate from this ISO 8601 instant instead of now (2026-03-01T09:00:00Z).")
    var from: String?

    @Flag(help: "Check against the limits of an agent's first 24 hours (1 post / 2 h, 20 comments / day).")
    var newAgent = false

    @Flag(help: "Print a JSON report on stdout instead of text.")
    var json = false

    @Argument(help: "Recipe files.")
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one recipe file") }
        _ = try settings()
    }

    func run() throws {
        let report = RecipeCheck.lint(files, settings: try settings())
        report.write(json: json)
        if report.exitStatus != .ok { throw ExitCode(report.exitStatus.rawValue) }
    }

    /// The only clock read of `lint`: `--from` defaults to now.
    func settings() throws -> LintSettings {
        do {
            return LintSettings(
                from: try from.map(LintSettings.instant) ?? Date(), horizon: try LintSettings.horizon(horizon),
                newAgent: newAgent)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
