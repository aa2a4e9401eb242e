import Foundation
import Generation
import MoltbookAPI
import Recipes

/// One step's generation as `moltipass generate` tries it (issue 21): the write the runner would
/// plan for an occurrence at `now`, the request it would send the generator (first attempt), and
/// what every check says of a text. Pure: nothing is journaled, nothing is sent.
public struct GenerationTrial: Sendable {
    /// What the step's write answers.
    public enum Target: Sendable, Equatable {
        /// A post: nothing.
        case none
        /// A comment on the post the recipe names (`post: ID`, maybe `reply_to:`). The runner
        /// reads the post (and a reply's thread) for the context when it can (`GenerationThread`).
        case named(post: String, replyTo: String?)
        /// A comment on each post the step's selector picks (`on:`): the post must be given.
        case selected
    }

    public let recipe: Recipe
    public let job: Job
    /// The step's index in the job (0-based, as in the context's `step`).
    public let step: Int
    public let spec: GeneratorSpec
    public let kind: PlannedWrite.Kind
    public let target: Target
    public let now: Date
    let environment: [String: String]

    /// The trial of step `step` (0-based) of `job`; nil when its text is not generated.
    public init?(recipe: Recipe, job: Job, step: Int, now: Date, environment: [String: String]) {
        guard job.steps.indices.contains(step) else { return nil }
        switch job.steps[step].action {
        case .post(let action):
            guard case .generated(let spec) = action.body else { return nil }
            (self.spec, kind, target) = (spec, .post, .none)
        case .comment(let action):
            guard case .generated(let spec) = action.content else { return nil }
            (self.spec, kind) = (spec, .comment)
            switch action.target {
            case .post(let id, let replyTo): target = .named(post: id.value, replyTo: replyTo?.value)
            case .selected: target = .selected
            }
        // Answers are generated for an inbound item a pass reads; `moltipass generate` does not
        // take one (documented in docs/generation.md).
        case .vote, .follow, .unfollow, .subscribe, .unsubscribe, .reply, .dm:
            return nil
        }
        (self.recipe, self.job, self.step, self.now, self.environment) = (recipe, job, step, now, environment)
    }

    /// The occurrence tried: one whose nominal and fire times are `now`.
    var occurrence: OccurrencePlanner.Occurrence { OccurrencePlanner.Occurrence(nominal: now, fire: now) }

    var expander: StepExpander {
        StepExpander(recipe: recipe, job: job, occurrence: occurrence, environment: environment)
    }

    /// The write the runner would plan, its text still to be generated. `post` is the target of
    /// a selector step (required there, ignored elsewhere): taken as given, whether or not the
    /// selector would pick it (`selectorPicks(_:)`).
    public func write(target post: Post?) -> StepExpander.Expanded? {
        switch target {
        case .selected:
            guard let post else { return nil }
            return expander.generated(
                PlannedWrite(kind: .comment, target: post.id, oncePerTarget: true), step: step, spec: spec,
                target: post)
        case .none, .named:
            let outcome = expander.expand(step: step, queuePosition: 0, now: now) { _, _ in false }
            guard case .writes(let writes) = outcome else { return nil }
            return writes.first
        }
    }

    /// Whether the step's selector would pick `post` now (true for steps without one). The
    /// runner also leaves out posts the step already commented on; that is not looked at here.
    public func selectorPicks(_ post: Post) -> Bool {
        guard case .comment(let action) = job.steps[step].action, case .selected(let selector) = action.target else {
            return true
        }
        return !TargetFilter.select([post], selector: selector, agent: recipe.agent.value, now: now).isEmpty
    }

    /// The first attempt's request for `write`'s text, as the planning builds it. `thread` is
    /// what the runner reads for a comment on a named post: the post, and a reply's chain of
    /// comments (nil when it could not be read: then the context has neither).
    public func request(for write: StepExpander.Expanded, recentTitles: [String], thread: GenerationThread? = nil)
        -> GenerationRequest?
    {
        guard var pending = write.generation else { return nil }
        if pending.target == nil { pending.target = thread?.post }
        return GenerationRequest.make(
            for: write, pending, agent: recipe.agent.value, recipe: recipe, job: job, occurrence: occurrence,
            attempt: 1, refusal: nil, recentTitles: recentTitles, thread: thread?.chain ?? [], environment: environment)
    }

    /// What each check says of `text` as `write`'s: the fields, the limits, the secret scan, the
    /// step's deny-list and, with the agent's `history`, the duplicate guard.
    public func findings(of text: GeneratedText, for write: StepExpander.Expanded, history: ContentHistory?)
        -> [GeneratedTextCheck.Finding]
    {
        let (fields, findings) = GeneratedTextCheck.findings(of: text, for: kind, deny: spec.deny.map(\.value))
        guard let fields else {
            return findings + [.init(check: "duplicates", result: .notChecked, detail: "the text gives no \(kind)")]
        }
        guard let history else {
            return findings + [.init(check: "duplicates", result: .notChecked, detail: "no state file")]
        }
        var filled = write.write
        filled.title = fields.title
        filled.content = fields.content
        if let reason = history.duplicate(of: filled, key: write.key, window: recipe.duplicateWindow) {
            return findings + [.init(check: "duplicates", result: .refused, detail: reason)]
        }
        let compared = "repeats none of the agent's \(history.count) text\(history.count == 1 ? "" : "s") in the state"
        return findings + [.init(check: "duplicates", result: .passed, detail: compared)]
    }
}
