import Foundation
import Recipes
import Storage

/// Issue 19, stable identity: a job is known in the state by its recipe's identity
/// (`Recipe.identity`: the recipe's `name:`, else its agent) and its id, never by the file's
/// name or path. State written when a recipe without `name:` was known by its file name is
/// read under that name while the identity has nothing yet; the next commit writes it under
/// the identity, so the migration happens once, on the first pass, without a schema change.
extension StateReader {
    /// The schedule cursor of `job` in `recipe`: under its identity, else under another name
    /// the state may know it by (`Recipe.stateNames`).
    package func scheduleCursor(of recipe: Recipe, job: String) async throws -> Date? {
        for name in recipe.stateNames {
            if let cursor = try await scheduleCursor(recipe: name, job: job) { return cursor }
        }
        return nil
    }
}

extension Recipe {
    /// The names the state may know this recipe's jobs by, its identity first: for a recipe
    /// without `name:`, also its file name (state written before identities, or while another
    /// recipe of the agent shared a job id) and its agent (state written while it did not).
    package var stateNames: [String] {
        nameIsExplicit ? [identity] : [identity] + [name, agent.value].filter { $0 != identity }
    }
}

extension Array where Element == Recipe {
    /// The name reports show for a job the state knows as `stateName` and `job`: the name of
    /// the recipe it belongs to (its `name:` or file name), or `stateName` when no recipe given
    /// has it (a recipe removed since).
    package func displayName(_ stateName: String, job: String) -> String {
        first { $0.stateNames.contains(stateName) && $0.jobs.contains { $0.id.value == job } }?.name ?? stateName
    }
}
