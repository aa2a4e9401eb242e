import Foundation
import Recipes
import Storage

/// Issue 19, stable identity: a job is known in the state by its recipe's identity
/// (`Recipe.identity`: the recipe's `name:`, else its agent) and its id, never by the file's
/// name or path. State written when a recipe without `name:` was known by its file name is
/// read under that name while the identity has nothing yet; the next commit writes it under
/// the identity, so the migration happens once, on the first pass, without a schema change.
extension StateReader {
    /// The schedule cursor of `job` in `recipe`.
    func scheduleCursor(of recipe: Recipe, job: String) throws -> Date? {
        if let cursor = try scheduleCursor(recipe: recipe.identity, job: job) { return cursor }
        return recipe.nameIsExplicit ? nil : try scheduleCursor(recipe: recipe.name, job: job)
    }
}

extension Recipe {
    /// The names the state may know this recipe's jobs by: its identity, and the file name it
    /// had before identities (for a recipe without `name:`).
    var stateNames: [String] { nameIsExplicit ? [identity] : [identity, name] }
}

extension Array where Element == Recipe {
    /// The name reports show for a job the state knows as `stateName` and `job`: the name of
    /// the recipe it belongs to (its `name:` or file name), or `stateName` when no recipe given
    /// has it (a recipe removed since).
    func displayName(_ stateName: String, job: String) -> String {
        first { $0.stateNames.contains(stateName) && $0.jobs.contains { $0.id.value == job } }?.name ?? stateName
    }
}
