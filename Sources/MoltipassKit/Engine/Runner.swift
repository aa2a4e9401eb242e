import Foundation
import Logging
import MoltbookAPI
import Recipes
import Scheduling
import Storage
import Synchronization

/// The engine: one `pass(now:)` plans what is due, journals it, and sends what the limiter
/// admits. The caller owns the clock (`run --once`, the daemon loop, `plan`, tests).
///
/// Per account, in order:
/// 1. take the account's lease (another holder → `locked`, nothing done);
/// 2. plan each job's due occurrences, expand their steps into writes, and record every write's
///    intent together with the job's cursor and queue positions in one transaction;
/// 3. drain the account's pending journal entries: reconcile uncertain ones by reading back,
///    then send each through the limiter, recording `sent` before and the outcome after.
public final class Runner: Sendable {
    /// Makes the client of an agent; called only when a request is actually due (the keychain
    /// is unlocked lazily).
    public typealias ClientFactory = @Sendable (_ agent: String, _ baseURL: String?) async throws -> MoltbookClient

    public struct Configuration: Sendable {
        /// This process, for leases and heartbeats.
        public var holder: String
        public var leaseTTL: TimeInterval = 600
        /// Release leases at the end of a pass (`run --once`); the daemon keeps and renews them.
        public var releaseLeases = true
        /// Environment visible to templates (only names a recipe whitelists are read).
        public var environment: [String: String] = [:]
        /// Longest gap between ticks that still counts as "the runner was alive".
        public var maxGap: TimeInterval = 3_600
        /// Whether a lease holder is a process that no longer exists (its lease is taken over
        /// instead of waited out); `LeaseHolder.isDeadLocalProcess` by default.
        public var isDeadHolder: @Sendable (String) -> Bool = LeaseHolder.isDeadLocalProcess

        public init(holder: String) { self.holder = holder }
    }

    public let recipes: [Recipe]
    public let store: any StateStore
    public let configuration: Configuration
    let makeClient: ClientFactory
    let logger: Logger
    /// Each account's limiter as last stored, with its bytes: a pass whose stored bytes are
    /// these takes the value instead of decoding it again (equal bytes, equal limiter).
    let decodedLimiters = Mutex<[String: (bytes: Data, limiter: Limiter)]>([:])

    public init(
        recipes: [Recipe], store: any StateStore, configuration: Configuration, logger: Logger,
        makeClient: @escaping ClientFactory
    ) {
        self.recipes = recipes
        self.store = store
        self.configuration = configuration
        self.makeClient = makeClient
        self.logger = logger
    }

    /// How `agent` answers verification challenges (its recipes' `challenge:` block, or the defaults).
    func challengePolicy(for agent: String) -> ChallengePolicy {
        ChallengePolicy.forAgent(agent, in: recipes)
    }

    /// The agents the recipes name, sorted.
    public var agents: [String] { Array(Set(recipes.map(\.agent.value))).sorted() }

    /// One pass at `now`.
    public func pass(now: Date) async -> RunReport {
        var report = RunReport()
        for agent in agents {
            await AccountPass(runner: self, agent: agent, now: now).run(into: &report)
        }
        return report
    }

    /// Gives up every lease this process holds (daemon shutdown).
    public func releaseAll() async {
        for agent in agents {
            _ = try? await store.releaseLease(account: agent, holder: configuration.holder)
        }
        _ = try? await store.transaction { [holder = configuration.holder] in try $0.removeHeartbeat(holder: holder) }
    }
}
