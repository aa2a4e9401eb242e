import Foundation
import Recipes

/// `moltipass validate` and `moltipass lint` as library calls: load every file, lint the valid ones, and collect
/// one report. The clock is never read here; `lint` takes its start instant from the caller.
public enum RecipeCheck {
    /// Loads each file in order; the report says which are valid and carries every diagnostic.
    public static func validate(_ paths: [String]) -> RecipeCheckReport {
        RecipeCheckReport(
            command: .validate,
            files: paths.map { path in
                switch load(path) {
                case .success: return RecipeCheckReport.File(file: path, valid: true, diagnostics: [])
                case .failure(let diagnostics):
                    return RecipeCheckReport.File(file: path, valid: false, diagnostics: diagnostics.sorted().items)
                }
            })
    }

    /// Loads each file, then lints the valid ones with `settings`; invalid files keep their validation diagnostics.
    /// Content shared between valid recipes of one agent (`lint-shared`) is reported on the later file.
    public static func lint(_ paths: [String], settings: LintSettings) -> RecipeCheckReport {
        let options = settings.options
        let loaded = paths.map { ($0, load($0)) }
        let recipes = loaded.compactMap { _, result in try? result.get() }
        let shared = Linter.sharedContent(recipes, options: options)
        return RecipeCheckReport(
            command: .lint(settings),
            files: loaded.map { path, result in
                switch result {
                case .success(let recipe):
                    let mine = shared[recipe.file] ?? []
                    return RecipeCheckReport.File(
                        file: path, valid: true,
                        diagnostics: (Linter.lint(recipe, options: options) + mine).sorted {
                            ($0.file, $0.line, $0.column) < ($1.file, $1.line, $1.column)
                        })
                case .failure(let diagnostics):
                    return RecipeCheckReport.File(file: path, valid: false, diagnostics: diagnostics.sorted().items)
                }
            })
    }

    /// `RecipeLoader.load(path:)`, after naming the common reasons a file cannot be read at all.
    static func load(_ path: String) -> Result<Recipe, Diagnostics> {
        var isDirectory: ObjCBool = false
        let problem: String?
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            problem = "no such file"
        } else if isDirectory.boolValue {
            problem = "is a directory"
        } else if !FileManager.default.isReadableFile(atPath: path) {
            problem = "permission denied"
        } else {
            problem = nil
        }
        if let problem {
            return .failure(
                Diagnostics([
                    Diagnostic(
                        file: path, mark: .start, code: "file",
                        message: "cannot read the recipe: \(problem)", expected: "a readable recipe file")
                ]))
        }
        return RecipeLoader.load(path: path)
    }
}
