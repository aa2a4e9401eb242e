import Foundation
import MoltipassEngine
import Recipes

/// `moltipass validate` and `moltipass lint` as library calls: load every file, lint the valid ones, and collect
/// one report. The clock is never read here; `lint` takes its start instant from the caller.
public enum RecipeCheck {
    /// Loads each file in order (a directory: its recipe files, `RecipePaths`); the report says
    /// which are valid and carries every diagnostic. A job that clashes with an earlier file's
    /// (`RecipeSet.conflicts`) is a warning here, where files are often checked together that
    /// never run together; `run`, `status`, `plan` and `check` refuse the later file.
    public static func validate(_ paths: [String]) -> RecipeCheckReport {
        RecipeCheckReport(
            command: .validate,
            files: loadAll(paths).map { path, result, clashes in
                switch result {
                case .success: return RecipeCheckReport.File(file: path, valid: true, diagnostics: clashes)
                case .failure(let diagnostics):
                    return RecipeCheckReport.File(file: path, valid: false, diagnostics: diagnostics.sorted().items)
                }
            })
    }

    /// Loads each file, then lints the valid ones with `settings`; invalid files keep their validation diagnostics.
    /// Content shared between valid recipes of one agent (`lint-shared`) is reported on the later file.
    public static func lint(_ paths: [String], settings: LintSettings) -> RecipeCheckReport {
        let options = settings.options
        let loaded = loadAll(paths)
        let recipes = loaded.compactMap { _, result, _ in try? result.get() }
        let shared = Linter.sharedContent(recipes, options: options)
        return RecipeCheckReport(
            command: .lint(settings),
            files: loaded.map { path, result, clashes in
                switch result {
                case .success(let recipe):
                    let mine = (shared[recipe.file] ?? []) + clashes
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

    /// Every file of `paths` (directories expanded) with its recipe or diagnostics, and, as
    /// warnings, what `run` would say of its jobs next to the earlier files': known by the file
    /// name (a job id shared within an agent), or refused (a `name:` shared).
    static func loadAll(_ paths: [String]) -> [(String, Result<Recipe, Diagnostics>, [Diagnostic])] {
        let loaded = RecipePaths.expand(paths).map { ($0, load($0)) }
        var recipes = loaded.compactMap { _, result in try? result.get() }
        let fileNamed = RecipeSet.assignIdentities(&recipes)
        let clashes =
            fileNamed
            + RecipeSet.conflicts(recipes).map { clash in
                var warning = clash
                warning.severity = .warning
                return warning
            }
        return loaded.map { path, result in
            let file = (try? result.get())?.file
            return (path, result, clashes.filter { $0.file == file })
        }
    }

    /// `RecipeLoader.load(path:)`, after naming the common reasons a file cannot be read at all.
    static func load(_ path: String) -> Result<Recipe, Diagnostics> {
        var isDirectory: ObjCBool = false
        let problem: String?
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            problem = "no such file"
        } else if isDirectory.boolValue {
            problem = "the directory has no recipe files (*.yaml, *.yml)"
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
