import Foundation
import Generation
import Logging
import MoltbookAPI
import MoltipassEngine
import Recipes

/// `plan --generate` (issue 21): the recipes' real generators instead of the placeholder. Programs
/// run and model servers are asked, once per generated write and attempt (the service keeps each
/// answer until its write is journaled); the plan still writes nothing to Moltbook or the state.
public enum PlanGeneration {
    /// A service that waits for each text, with the model servers' transport of `run` (https, or
    /// http to loopback; no redirects; answers up to 2 MiB).
    ///
    /// The keychain is opened (`keys()`, then unlocked) only when a recipe names a keychain model
    /// key (`key:`), and each such key is read once before anything is simulated: a keychain that
    /// cannot give one fails here with the keychain's exit status (as `plan --live` does for the
    /// agents' keys), not in the middle of the plan. A `key_file:` is read when its generator runs.
    public static func service(
        recipes: [Recipe], environment: [String: String], keys: () throws -> KeysSession,
        logger: Logger = Logger(label: "moltipass.plan.generate") { _ in SwiftLogNoOpLogHandler() }
    ) async throws -> GenerationService {
        var names: [String] = []
        for recipe in recipes { names += recipe.keychainModelKeys.filter { !names.contains($0) } }
        var session: KeysSession?
        if !names.isEmpty {
            let opened = try keys()
            for name in names {
                do {
                    _ = try await opened.modelKey(named: name)
                } catch {
                    throw KeysFailure(
                        ErrorReporting.exitStatus(for: error),
                        "plan --generate needs the model key \(name) from the keychain: \(error)")
                }
            }
            session = opened
        }
        return GenerationService(
            mode: .wait, environment: environment, transport: ModelTransport.make(), logger: logger,
            keys: ModelKeyProvider.make(keys: session))
    }

}
