import Foundation
import Generation
import MoltbookAPI
import MoltipassEngine

extension RunSession {
    /// The generators of `run` and `daemon` (issue 21): programs and model servers, in the
    /// background, so a slow generator holds up only its own job. `onReady` is called when a
    /// text is ready (the daemon passes again at once).
    ///
    /// The model servers get a transport of their own (`ModelTransport`).
    public func generationService(
        environment: [String: String], onReady: @escaping @Sendable () -> Void = {}
    ) -> GenerationService {
        GenerationService(
            mode: .background, environment: environment, transport: ModelTransport.make(), logger: logger,
            keys: ModelKeyProvider.make(keys: keys), onReady: onReady)
    }
}
