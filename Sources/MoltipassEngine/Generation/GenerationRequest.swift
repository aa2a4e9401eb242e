import Foundation
import Generation
import Recipes

/// One text the planning asks a generator for (issue 21): what to run, with which context, for
/// which write. Built by `PlanningMachine` (pure); answered by a `TextGenerating`.
public struct GenerationRequest: Sendable {
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
