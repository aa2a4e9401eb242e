/// Checks across the recipes one runner is given together.
public enum RecipeSet {
    /// Gives each recipe its identity in `recipes` (`Recipe.identity`): a recipe without
    /// `name:` is known by its agent, unless another recipe of that agent without `name:` has a
    /// job of the same id; then both are known by their file names, as before identities. Returns
    /// a warning for each such pair, on the later recipe's job id.
    @discardableResult
    public static func assignIdentities(_ recipes: inout [Recipe]) -> [Diagnostic] {
        var owners: [String: [Int]] = [:]  // agent + job id → indices of recipes without `name:`
        for (index, recipe) in recipes.enumerated() where !recipe.nameIsExplicit {
            for job in recipe.jobs { owners[recipe.agent.value + "\u{1F}" + job.id.value, default: []].append(index) }
        }
        var warnings: [Diagnostic] = []
        var warned: Set<String> = []
        for (key, indices) in owners.sorted(by: { $0.key < $1.key }) {
            let files = Set(indices.map { recipes[$0].file })
            guard files.count > 1 else { continue }
            for index in indices { recipes[index].identityIsFileName = true }
            let first = recipes[indices[0]]
            let job = String(key.split(separator: "\u{1F}").last ?? "")
            for index in indices.dropFirst() where recipes[index].file != first.file {
                let recipe = recipes[index]
                guard warned.insert(recipe.file + "|" + job).inserted,
                    let mark = recipe.jobs.first(where: { $0.id.value == job })?.id.mark
                else { continue }
                warnings.append(
                    Diagnostic(
                        file: recipe.file, mark: mark, severity: .warning, code: "identity",
                        message: "job id `\(job)` is also in \(first.file) for agent `\(recipe.agent.value)`: both "
                            + "recipes are known by their file names, so renaming either repeats its actions",
                        expected: "a `name:` for each recipe, or different job ids"))
            }
        }
        return warnings
    }

    /// Jobs two recipes would both claim in the state once identities are assigned: two
    /// recipes with the same `name:` and a job of the same id (or a `name:` equal to another
    /// recipe's identity) would share one schedule. One error per clash, on the later recipe's
    /// job id, naming the first.
    public static func conflicts(_ recipes: [Recipe]) -> [Diagnostic] {
        var first: [String: (file: String, mark: Mark)] = [:]
        var problems: [Diagnostic] = []
        for recipe in recipes {
            for job in recipe.jobs {
                let key = recipe.identity + "\u{1F}" + job.id.value
                if let earlier = first[key], earlier.file != recipe.file {
                    problems.append(
                        Diagnostic(
                            file: recipe.file, mark: job.id.mark, code: "duplicate",
                            message: "job id `\(job.id.value)` is also in \(earlier.file):\(earlier.mark) under the "
                                + "same name `\(recipe.identity)`: the two would share one schedule",
                            expected: "a different job id, or different `name:`s"))
                } else if first[key] == nil {
                    first[key] = (recipe.file, job.id.mark)
                }
            }
        }
        return problems
    }
}
