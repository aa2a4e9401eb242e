import Foundation
import Generation
import MoltbookAPI
import MoltipassEngine

extension RunSession {
    /// The generators of `run` and `daemon` (issue 21): programs and model servers, in the
    /// background, so a slow generator holds up only its own job. `onReady` is called when a
    /// text is ready (the daemon passes again at once).
    ///
    /// The model servers get a transport of their own: https, or http to loopback; no
    /// redirects; answers up to 2 MiB; a request may take as long as the longest `timeout:` a
    /// recipe allows (10 minutes), the step's own timeout bounding each call.
    public func generationService(
        environment: [String: String], onReady: @escaping @Sendable () -> Void = {}
    ) -> GenerationService {
        let transport = try? CurlTransport(
            configuration: .init(
                totalTimeout: .seconds(600), maxResponseBytes: 2 << 20, policy: ChatCompletionsClient.policy))
        return GenerationService(
            mode: .background, environment: environment, transport: transport, logger: logger,
            keys: ModelKeyProvider.make(keys: keys), onReady: onReady)
    }
}
