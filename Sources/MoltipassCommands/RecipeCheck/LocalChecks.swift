import Foundation
import MoltipassEngine
import Recipes

/// What a valid recipe needs from the machine it runs on, checked before anything runs (issue
/// 19): `run` refuses a recipe whose whitelisted environment variables are not set (they used
/// to render as empty text and post "Mood: "), and whose challenge solver command is missing
/// or not executable. `moltipass check` reports the same, with the server's side.
public enum LocalChecks {
    /// Every problem of `recipe` on this machine, in the order of the recipe.
    public static func problems(_ recipe: Recipe, environment: [String: String]) -> [HealthProblem] {
        var problems: [HealthProblem] = []
        for name in recipe.environment where (environment[name] ?? "").isEmpty {
            problems.append(
                HealthProblem(
                    kind: "environment", agent: recipe.agent.value,
                    message: "\(recipe.file): environment variable \(name) is "
                        + (environment[name] == nil ? "not set" : "empty")
                        + " (the recipe's `env:` names it; templates would render it as empty text)"))
        }
        if case .command(let path, _)? = recipe.challenge?.solver {
            let resolved = path  // run as given: absolute, or relative to the working directory
            if !FileManager.default.isExecutableFile(atPath: resolved) {
                problems.append(
                    HealthProblem(
                        kind: "solver", agent: recipe.agent.value,
                        message: "\(recipe.file): challenge solver command \(path) "
                            + (FileManager.default.fileExists(atPath: resolved)
                                ? "is not executable" : "does not exist")))
            }
        }
        return problems
    }

    /// `recipes` split into those that can run here and the problems of the others.
    public static func split(_ recipes: [Recipe], environment: [String: String]) -> (
        runnable: [Recipe], problems: [HealthProblem]
    ) {
        var runnable: [Recipe] = []
        var problems: [HealthProblem] = []
        for recipe in recipes {
            let found = Self.problems(recipe, environment: environment)
            if found.isEmpty { runnable.append(recipe) } else { problems += found }
        }
        return (runnable, problems)
    }
}
