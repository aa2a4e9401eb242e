import Foundation
import MoltbookAPI
import Recipes

/// Reads deferred by a limit are kept like writes (issue 33, observation 3). A step whose
/// selection or inbox read met a 429 (or the limiter's own hold, or a failed read) used to keep
/// its job's cursor only when nothing else of the job was planned, and only until the missed-run
/// policy dropped the occurrence: `run --once` reported it deferred and the next run made no
/// request; a job whose other step was journaled lost it at once. Now the step itself is kept in
/// the state (`limiter_state` key `deferred-steps`), planned again once its read is allowed, shown
/// by `pending` and `status`, and leaves only when it was planned, or expired by its job's
/// policy (`expire_after`, else the job's next occurrence: the same as its writes).
package struct DeferredStep: Sendable, Equatable {
    /// The recipe's identity (`Recipe.identity`) and the job's id.
    package var recipe: String
    package var job: String
    /// The occurrence the step belongs to (its idempotency keys are that occurrence's).
    package var nominal: Date
    package var fire: Date
    package var step: Int
    /// What waits: `select targets`, `read replies`, `read direct messages`.
    package var what: String
    package var reason: String
    /// When the read may be made; nil: the next pass.
    package var retryAt: Date?
    package var since: Date
    package var expiresAt: Date

    /// Which step of which occurrence: one record each.
    package var identity: String { "\(recipe)|\(job)|\(nominal.timeIntervalSince1970)|\(step)" }

    var occurrence: OccurrencePlanner.Occurrence { .init(nominal: nominal, fire: fire) }

    /// How `pending` and `status` name it (not a journal key: nothing to cancel or settle).
    package var key: String { "read:\(recipe)/\(job)@\(MoltbookDateText.iso(nominal))#\(step + 1)" }
    /// What waits, in words: `select targets for step 2`.
    package var action: String { "\(what) for step \(step + 1)" }
}

/// Every deferred step of an account, oldest first; stored as JSON.
package struct DeferredSteps: Sendable, Equatable, StoredForm {
    package static let stateKey = "deferred-steps"
    package var items: [DeferredStep] = []

    init() {}

    /// Adds `step`, replacing the record of the same step (its retry time and reason move on;
    /// when it was first deferred stays).
    mutating func keep(_ step: DeferredStep) {
        if let index = items.firstIndex(where: { $0.identity == step.identity }) {
            var kept = step
            kept.since = items[index].since
            items[index] = kept
        } else {
            items.append(step)
        }
    }

    mutating func remove(_ identity: String) { items.removeAll { $0.identity == identity } }

    package init?(stored: Data) {
        guard let list = (try? JSONValue.parse(stored))?["steps"]?.array else { return nil }
        var items: [DeferredStep] = []
        for value in list {
            guard let recipe = value["recipe"]?.string, let job = value["job"]?.string,
                let nominal = value["nominal"]?.date, let fire = value["fire"]?.date, let step = value["step"]?.int,
                let since = value["since"]?.date, let expiresAt = value["expires_at"]?.date
            else { return nil }
            items.append(
                DeferredStep(
                    recipe: recipe, job: job, nominal: nominal, fire: fire, step: step,
                    what: value["what"]?.string ?? "read", reason: value["reason"]?.string ?? "",
                    retryAt: value["retry_at"]?.date, since: since, expiresAt: expiresAt))
        }
        self.items = items
    }

    package var stored: Data {
        JSONValue.object([
            "steps": .array(
                items.map { item in
                    var fields: [String: JSONValue] = [
                        "recipe": .string(item.recipe), "job": .string(item.job),
                        "nominal": .string(MoltbookDate.format(item.nominal)),
                        "fire": .string(MoltbookDate.format(item.fire)), "step": .number(Double(item.step)),
                        "what": .string(item.what), "reason": .string(item.reason),
                        "since": .string(MoltbookDate.format(item.since)),
                        "expires_at": .string(MoltbookDate.format(item.expiresAt)),
                    ]
                    if let retryAt = item.retryAt { fields["retry_at"] = .string(MoltbookDate.format(retryAt)) }
                    return .object(fields)
                })
        ]).encoded()
    }
}
