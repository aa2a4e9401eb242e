import Foundation
import Generation
import MoltbookAPI
import Recipes

/// One text the planning asks a generator for (issue 21): what to run, with which context, for
/// which write. Built by `PlanningMachine` (pure); answered by a `TextGenerating`.
public struct GenerationRequest: Sendable, Equatable {
    /// The write's idempotency key: the same for every attempt at the same write.
    public var key: String
    /// 1 for the first text; more when a check refused the earlier ones.
    public var attempt: Int
    public var agent: String
    /// `recipe/job`, for reports and logs.
    public var job: String
    public var spec: GeneratorSpec
    /// The JSON context (docs/generation.md): a command's stdin, `{{ context }}` in a prompt.
    public var context: Data
    /// The rendered system message and user prompt (openai only).
    public var system: String?
    public var prompt: String?

    /// One attempt's identity: a retried attempt of the same write is served from the same text.
    public var attemptKey: String { "\(key)#\(attempt)" }
}

extension GenerationRequest {
    /// The request for one attempt at `expanded`'s text: the context, and for an `openai:`
    /// generator the rendered system message and prompt. The planning and `moltipass generate`
    /// both build it here, so what an operator tries is what the runner asks.
    public static func make(
        for expanded: StepExpander.Expanded, _ pending: StepExpander.PendingText, agent: String, recipe: Recipe,
        job: Job, occurrence: OccurrencePlanner.Occurrence, attempt: Int, refusal: String?, recentTitles: [String],
        thread: [Comment] = [], environment: [String: String]
    ) -> GenerationRequest {
        let context = GenerationContext(
            agent: agent, recipe: recipe.name, job: job.id.value, step: expanded.step, kind: expanded.write.kind,
            occurrence: occurrence.nominal, key: expanded.key, attempt: attempt, refusal: refusal,
            submolt: expanded.write.submolt, target: pending.target, replyTo: expanded.write.parentID,
            recentTitles: recentTitles, thread: thread, topic: pending.topic, trigger: pending.trigger)
        var system: String?
        var prompt: String?
        if case .openAI(let endpoint) = pending.spec.source {
            let expander = StepExpander(recipe: recipe, job: job, occurrence: occurrence, environment: environment)
            var templateContext = expander.context()
            templateContext.generation = context.placeholders
            system = [endpoint.system?.render(templateContext), GenerationContext.untrustedNote].compactMap { $0 }
                .joined(separator: "\n\n")
            var text = endpoint.prompt.render(templateContext)
            if let refusal {
                text += "\n\n(An earlier answer was refused: \(refusal). Write a different one.)"
            }
            prompt = text
        }
        return GenerationRequest(
            key: expanded.key, attempt: attempt, agent: agent, job: "\(recipe.name)/\(job.id.value)",
            spec: pending.spec, context: context.json.encoded(), system: system, prompt: prompt)
    }
}

/// What a generator made of a request.
public enum GenerationAnswer: Sendable, Equatable {
    case text(GeneratedText)
    /// The generator declined this occurrence (a command's exit code 3).
    case skip(reason: String)
    /// It failed; the occurrence is skipped with the reason (the next occurrence tries again).
    case failed(reason: String)
    /// Still being written (the daemon generates in the background): the job waits for a later
    /// pass and nothing of it is journaled meanwhile.
    case pending
}

/// Answers generation requests: the real generators (`GenerationService`), `plan`'s placeholder.
public protocol TextGenerating: Sendable {
    func generate(_ request: GenerationRequest) async -> GenerationAnswer
    /// The texts of these writes were journaled: what was kept for them can go.
    func journaled(keys: [String]) async
}

extension TextGenerating {
    public func journaled(keys: [String]) async {}
}
