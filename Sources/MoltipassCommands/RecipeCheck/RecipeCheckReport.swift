import Foundation
import MoltipassEngine
import Recipes

/// The outcome of `validate` or `lint` over several files: per file, whether it is a valid recipe and every
/// diagnostic; the exit status; the text and JSON forms (schema in docs/recipes.md, "validate and lint").
public struct RecipeCheckReport: Sendable, Equatable {
    /// Which command produced the report.
    public enum Command: Sendable, Equatable {
        case validate
        case lint(LintSettings)
    }

    /// One file's result.
    public struct File: Sendable, Equatable, Encodable {
        /// The path as given on the command line.
        public var file: String
        /// True if the file is a valid recipe (lint findings do not change this).
        public var valid: Bool
        /// Validation errors if invalid, lint findings if valid; sorted by file, line, column. A finding inside a
        /// queue file names that file.
        public var diagnostics: [Diagnostic]

        public var errors: Int { diagnostics.count(where: { $0.severity == .error }) }
        public var warnings: Int { diagnostics.count(where: { $0.severity == .warning }) }

        enum CodingKeys: String, CodingKey {
            case file, valid, errors, warnings, diagnostics
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(file, forKey: .file)
            try container.encode(valid, forKey: .valid)
            try container.encode(errors, forKey: .errors)
            try container.encode(warnings, forKey: .warnings)
            try container.encode(diagnostics, forKey: .diagnostics)
        }
    }

    public var command: Command
    public var files: [File]

    public init(command: Command, files: [File]) {
        self.command = command
        self.files = files
    }

    /// 65 if any file is invalid (or unreadable), else 11 if `lint` found an error-severity problem, else 0.
    public var exitStatus: ExitStatus {
        if files.contains(where: { !$0.valid }) { return .invalidRecipe }
        if files.contains(where: { $0.errors > 0 }) { return .lintFindings }
        return .ok
    }

    /// `ok FILE` (with a warning count after `lint`) for each file without errors.
    public var standardOutput: String {
        files.filter { $0.valid && $0.errors == 0 }.map { file in
            switch (command, file.warnings) {
            case (.lint, 1): return "ok \(file.file) (1 warning)\n"
            case (.lint, let count) where count > 1: return "ok \(file.file) (\(count) warnings)\n"
            default: return "ok \(file.file)\n"
            }
        }.joined()
    }

    /// Every diagnostic, one per line (`file:line:column: severity: message; expected …`), files in order.
    public var standardError: String {
        files.flatMap(\.diagnostics).map { "\($0)\n" }.joined()
    }

    /// The JSON form: `{"command", "exit_status", "files": [{"file", "valid", "errors", "warnings",
    /// "diagnostics"}]}` plus `from`, `horizon` and `profile` after `lint`. Keys sorted, pretty-printed.
    public func jsonData() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(JSONForm(self))) ?? Data("{}".utf8)
    }

    struct JSONForm: Encodable {
        var command: String
        var exitStatus: Int32
        var files: [File]
        var from: String?
        var horizon: String?
        var profile: String?

        enum CodingKeys: String, CodingKey {
            case command, files, from, horizon, profile
            case exitStatus = "exit_status"
        }

        init(_ report: RecipeCheckReport) {
            exitStatus = report.exitStatus.rawValue
            files = report.files
            switch report.command {
            case .validate:
                command = "validate"
            case .lint(let settings):
                command = "lint"
                from = LintSettings.format(settings.from)
                horizon = DurationText.format(settings.horizon)
                profile = settings.profileName
            }
        }
    }
}
