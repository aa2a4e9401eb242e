import Foundation
import Generation
import MoltbookAPI
import Recipes

extension GenerationService {
    /// One generation: the program or the server, and the model key kept out of the text.
    static func run(
        _ request: GenerationRequest, environment: [String: String], transport: (any HTTPTransport)?,
        keys: KeyProvider, admit: @Sendable (String) async -> Duration
    ) async -> GenerationAnswer {
        let spec = request.spec
        switch spec.source {
        case .command(let arguments):
            let generator = CommandGenerator(
                command: arguments, environment: environment.filter { spec.environment.contains($0.key) },
                timeout: TimeInterval(spec.timeoutSeconds), maxOutput: spec.maxOutput)
            switch await generator.run(context: request.context) {
            case .text(let text): return .text(text)
            case .skip(let reason): return .skip(reason: reason)
            case .failed(let reason, _): return .failed(reason: reason)
            }
        case .openAI(let endpoint):
            guard let transport else { return .failed(reason: "no HTTP transport for the model server") }
            guard let baseURL = URL(string: endpoint.baseURL.value) else {
                return .failed(reason: "base_url \(endpoint.baseURL.value) is not a URL")
            }
            var key: APIKey?
            if let source = endpoint.key {
                do {
                    key = try await keys(source)
                } catch {
                    return .failed(reason: "the model key is not available: \(error)")
                }
            }
            let client = ChatCompletionsClient(
                baseURL: baseURL, model: endpoint.model, key: key, transport: transport,
                timeout: .seconds(spec.timeoutSeconds), maxResponseBytes: spec.maxOutput + 64 * 1024)
            let deadline = ContinuousClock.now + .seconds(spec.timeoutSeconds)
            var attempt = 0
            while true {
                attempt += 1
                // The first call was admitted before the slot was taken (`produce`).
                let wait = attempt == 1 ? .zero : await admit(baseURL.host ?? "")
                if wait > .zero {
                    guard ContinuousClock.now + wait < deadline else {
                        return .failed(reason: "the model server's request budget (\(requestsPerMinute)/min) is spent")
                    }
                    try? await Task.sleep(for: wait)
                }
                do {
                    let text = try await client.complete(
                        system: request.system, prompt: request.prompt ?? "", temperature: endpoint.temperature,
                        maxTokens: endpoint.maxTokens)
                    if let key, key.withRawValue({ text.contains($0) }) {
                        return .failed(reason: "the model returned its own key; never published")
                    }
                    return .text(ModelAnswer.text(text))
                } catch {
                    let pause = retryPause(error, attempt: attempt)
                    guard error.isWorthRetrying, attempt < 3, let pause, ContinuousClock.now + pause < deadline else {
                        return .failed(reason: error.description)
                    }
                    try? await Task.sleep(for: pause)
                }
            }
        }
    }

    /// The pause before retrying after `error`: the server's `Retry-After`, else 1 s then 4 s.
    static func retryPause(_ error: GenerationError, attempt: Int) -> Duration? {
        if case .rateLimited(_, let retryAfter?) = error { return .seconds(retryAfter) }
        return .seconds(attempt == 1 ? 1 : 4)
    }
}
