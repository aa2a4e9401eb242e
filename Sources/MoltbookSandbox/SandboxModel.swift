import Foundation
import MoltbookAPI
import Synchronization

/// An in-memory fake of the Moltbook API: agents, claim, posts, comments, toggling votes, submolts,
/// follows, search, limits with the real 429 shapes, verification challenges and injected faults.
///
/// The model never reads a clock: every call takes `now`. Randomness (ids, keys, challenges) comes
/// from a PRNG seeded at `init`, so one seed and one request sequence give byte-identical replies.
public final class SandboxModel: Sendable {
    private let state: Mutex<SandboxState>

    public init(config: SandboxConfig = .init(), seed: UInt64 = 1) {
        self.state = Mutex(SandboxState(config: config, seed: seed))
    }

    /// Answers one request as the real API would at `now` (admin paths under `/_sandbox/` included).
    ///
    /// `handingOverTree`: a successful answer's body comes as `HTTPResponse.parsedBody` (a
    /// `JSONValue`), not as bytes; for in-process clients, which would only parse them back.
    public func handle(_ request: SandboxRequest, now: Date, handingOverTree: Bool = false) -> SandboxReply {
        state.withLock { $0.handle(request, now: now, handingOverTree: handingOverTree) }
    }

    /// What the sandbox has seen so far.
    public func counters() -> SandboxCounters {
        state.withLock { $0.counters }
    }

    /// The name of the agent whose API key `request` carries (`Authorization: Bearer`), or nil
    /// (no key, an unknown one); for the server's request log.
    public func agentName(of request: SandboxRequest) -> String? {
        guard let key = SandboxState.bearerToken(request.headers) else { return nil }
        return state.withLock { state in state.agentIDByKey[key].flatMap { state.agents[$0]?.name } }
    }

    /// The current configuration.
    public var config: SandboxConfig {
        state.withLock { $0.config }
    }

    /// Marks a registered agent as claimed by its human; false when no agent has that name.
    @discardableResult
    public func claim(agentNamed name: String) -> Bool {
        state.withLock { $0.claimAgent(named: name).status == 200 }
    }

    /// Suspends a registered agent for `seconds` from `now` (writes get the 403 suspension body);
    /// false when no agent has that name.
    @discardableResult
    public func suspend(agentNamed name: String, seconds: Int, now: Date) -> Bool {
        state.withLock { $0.suspendAgent(named: name, seconds: seconds, now: now).status == 200 }
    }

    /// Replaces the configuration (queued faults are kept; `config.faults` is not re-queued).
    public func setConfig(_ config: SandboxConfig) {
        state.withLock { $0.config = config }
    }

    /// Changes the configuration in place.
    public func configure(_ mutate: (inout SandboxConfig) -> Void) {
        state.withLock { mutate(&$0.config) }
    }

    /// Queues faults; each affects up to `count` matching requests, first match first.
    public func injectFaults(_ faults: [FaultSpec]) {
        state.withLock { $0.faults += faults }
    }

    /// Drops every queued fault.
    public func clearFaults() {
        state.withLock { $0.faults.removeAll() }
    }

    /// The faults still queued.
    public func pendingFaults() -> [FaultSpec] {
        state.withLock { $0.faults }
    }

    /// The expected answer (two decimals) of a verification code, for demos and client tests.
    public func expectedAnswer(forVerificationCode code: String) -> String? {
        state.withLock { $0.challenges[code].map { SandboxDecimal.twoPlaces($0.answer) } }
    }

    /// Forgets all agents and content and restarts the PRNG from the original seed; keeps the config.
    public func reset() {
        state.withLock { $0 = SandboxState(config: $0.config, seed: $0.seed) }
    }
}
