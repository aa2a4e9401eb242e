import Foundation
import Recipes

/// One job of a recipe, made once per runner and shared by every pass: a pass copies a pointer,
/// not the recipe (a `Recipe` copy retains each of its fields; per job per pass it was the
/// largest cost of a pass with nothing due, bench 2026-11-24).
final class JobRef: Sendable {
    let recipe: Recipe
    let job: Job
    /// `PlanningMachine.jobKey(recipe.identity, job.id)`: the job's key in the snapshot's cursors.
    let key: String
    /// The content queues the job posts from, as older state kept their index positions: under
    /// the recipe's name (the file's name when no `name:` was written) and the queue's path.
    let legacyQueues: [(recipe: String, queue: String)]

    init(recipe: Recipe, job: Job) {
        self.recipe = recipe
        self.job = job
        key = PlanningMachine.jobKey(recipe.identity, job.id.value)
        legacyQueues = job.steps.compactMap(PlanningMachine.queue(of:)).map { (recipe.name, $0.path.value) }
    }

    /// Every job of `recipes`, in recipe then job order.
    static func all(_ recipes: [Recipe]) -> [JobRef] {
        recipes.flatMap { recipe in recipe.jobs.map { JobRef(recipe: recipe, job: $0) } }
    }
}
