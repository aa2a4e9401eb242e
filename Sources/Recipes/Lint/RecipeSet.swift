/// Checks across the recipes one runner is given together.
public enum RecipeSet {
    /// Jobs two recipes would both claim in the state: a job is its recipe's identity (the
    /// recipe's `name:`, else its agent) and its id, so two recipes of one agent without `name:`
    /// that both have a job `daily` would share one schedule (the second's occurrences done by
    /// the first). One error per clash, on the later recipe's job id, naming the first.
    public static func conflicts(_ recipes: [Recipe]) -> [Diagnostic] {
        var first: [String: (file: String, mark: Mark)] = [:]
        var problems: [Diagnostic] = []
        for recipe in recipes {
            for job in recipe.jobs {
                let key = recipe.identity + "\u{1F}" + job.id.value
                if let earlier = first[key], earlier.file != recipe.file {
                    let owner =
                        recipe.nameIsExplicit
                        ? "recipes named `\(recipe.name)`" : "recipes of agent `\(recipe.agent.value)`"
                    problems.append(
                        Diagnostic(
                            file: recipe.file, mark: job.id.mark, code: "duplicate",
                            message:
                                "job id `\(job.id.value)` is also in \(earlier.file):\(earlier.mark); two \(owner) "
                                + "would share its schedule (a job is known by the recipe's `name:`, else its agent, "
                                + "and its id — never by the file's name)",
                            expected: "a different job id, or a `name:` for one of the recipes"))
                } else if first[key] == nil {
                    first[key] = (recipe.file, job.id.mark)
                }
            }
        }
        return problems
    }
}
