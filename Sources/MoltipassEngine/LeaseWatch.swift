import Foundation
import Logging
import MoltbookAPI
import Storage
import Synchronization

/// What a pass knows of its agent's lease, and the fence on its requests (issue 23).
///
/// Writes are fenced in the store: each transaction that records a write's fate renews the lease
/// under the pass's token, and fails once another runner holds it. Requests need a fence of their
/// own: a runner cut off from the store (a partition, a paused process) cannot commit anything,
/// but an agent's turn that began under a valid lease went on sending reads — `fleet-check` saw a
/// cut-off runner read a post for an agent 25 s after its last renewal of a 15 s lease, while
/// another runner held it. So every request of a pass that holds a lease is asked of
/// `admit(endpoint:)` first (`MoltbookClient.with(gate:)`): it goes only while the lease, as last
/// renewed, has at least half its time left on the run loop's clock; past that the lease is
/// renewed first, and if the renewal fails — taken over, or the store does not answer — the
/// turn sends nothing more for the agent. A request therefore always leaves with half a lease
/// time in hand, however long the turn (a stalled store, a slow generator, a long challenge).
final class LeaseWatch: Sendable {
    /// Why the pass stopped sending for its agent.
    enum Loss: Sendable, Equatable {
        /// Another runner holds the lease (a transaction's fence failed, or the renewal did).
        case takenOver
        /// The lease could not be renewed (the store failed) and its time is up, or may be:
        /// whether this runner still holds it cannot be known.
        case unconfirmed(String)
    }

    private struct State {
        /// The pass's fencing token and the lease's expiry as last renewed; nil until the pass
        /// takes the lease (a start-up check holds none, and is not fenced).
        var token: Int64?
        var expiresAt = Date.distantPast
        var loss: Loss?
    }

    private let state = Mutex(State())

    /// The pass took the lease: its token, and until when it holds it.
    func took(token: Int64, until expiry: Date) {
        state.withLock {
            $0.token = token
            $0.expiresAt = expiry
        }
    }

    /// A transaction renewed the lease under the pass's token until `expiry`.
    func renewed(until expiry: Date) {
        state.withLock { $0.expiresAt = max($0.expiresAt, expiry) }
    }

    /// The pass stops sending for its agent; true the first time (for one log line).
    @discardableResult
    func lose(_ loss: Loss) -> Bool {
        state.withLock { state in
            guard state.loss == nil else { return false }
            state.loss = loss
            return true
        }
    }

    var token: Int64 { state.withLock { $0.token ?? 0 } }
    var loss: Loss? { state.withLock { $0.loss } }
    var isLost: Bool { loss != nil }

    /// What a request's gate needs besides the watch: how to renew, and the clock.
    struct Renewal: Sendable {
        var store: any StateStore
        var agent: String
        var holder: String
        var ttl: TimeInterval
        /// The pass's start: renewals are never dated before it.
        var floor: Date
        /// The run loop's clock.
        var clock: @Sendable () -> Date
        var logger: Logger

        var instant: Date { max(floor, clock()) }
    }

    /// Whether a request for `endpoint` may leave now: nil if so, else the error it ends with
    /// (not sent). Renews the lease first when half its time is gone.
    func admit(endpoint: String, _ renewal: Renewal) async -> APIError? {
        let (token, expiry, loss) = state.withLock { ($0.token, $0.expiresAt, $0.loss) }
        guard let token else { return nil }
        if let loss { return Self.refusal(endpoint, loss, agent: renewal.agent) }
        let at = renewal.instant
        if at < expiry.addingTimeInterval(-renewal.ttl / 2) { return nil }
        let outcome: Loss?
        do {
            let renewed = try await renewal.store.renewLease(
                account: renewal.agent, holder: renewal.holder, token: token, now: at, ttl: renewal.ttl)
            if let renewed {
                self.renewed(until: renewed.expiresAt)
                // The renewal itself may have taken long (a store near its deadline).
                let after = renewal.instant
                outcome =
                    after < renewed.expiresAt.addingTimeInterval(-renewal.ttl / 2)
                    ? nil : .unconfirmed("the renewal of its lease took until \(MoltbookDate.format(after))")
            } else {
                outcome = .takenOver
            }
        } catch {
            outcome = .unconfirmed("its lease could not be renewed: \(error)")
        }
        guard let outcome else { return nil }
        if lose(outcome) {
            renewal.logger.warning(
                outcome == .takenOver
                    ? "lease taken over by another runner during the pass; this runner stops for the agent"
                    : "the lease could not be confirmed; this runner sends nothing more for the agent this pass",
                metadata: [
                    "agent": "\(renewal.agent)", "event": outcome == .takenOver ? "lease_lost" : "lease_unconfirmed",
                    "reason": "\(Self.words(outcome))",
                ])
        }
        return Self.refusal(endpoint, outcome, agent: renewal.agent)
    }

    static func words(_ loss: Loss) -> String {
        switch loss {
        case .takenOver: "another runner holds the lease"
        case .unconfirmed(let why): why
        }
    }

    /// The error of a request the fence kept back: a transport failure before anything was sent
    /// (never an outcome to reconcile, never the server's word).
    static func refusal(_ endpoint: String, _ loss: Loss, agent: String) -> APIError {
        APIError(
            code: .transport,
            message: "not sent: this runner no longer vouches for the lease of \(agent) (\(words(loss)))",
            endpoint: endpoint, transport: .cancelled(requestSent: false))
    }
}
