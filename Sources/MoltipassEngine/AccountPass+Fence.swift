import Foundation
import MoltbookAPI
import Storage

/// The lease as a fence (issue 23's single-host half, found by a run whose clock was 11 minutes
/// ahead): a pass takes its agent's lease when it starts, but another runner may take it over
/// while the pass is still working (a paused process, a clock ahead, a long request). Every
/// transaction that records a write's fate first renews the lease in the same transaction, and
/// fails when this runner no longer holds it: a runner that lost its agent never marks a write
/// sent (so it never sends it) and never marks one done (the new holder reads it back instead).
struct LeaseLost: Error, CustomStringConvertible {
    var agent: String

    var description: String { "another runner holds the lease of \(agent) now" }
}

/// What a transaction's closure needs to renew the lease: who holds it, under which fencing
/// token, for how long, from which instant.
struct Fence: Sendable {
    var holder: String
    /// The token the pass got when it took the lease: a runner that lost the lease and took it
    /// again later (a new token) cannot commit for a pass that started under the old one.
    var token: Int64
    var ttl: TimeInterval
    var at: Date

    /// Renews the lease inside `transaction`; throws `LeaseLost` when another holder has it, or
    /// this holder under another token.
    func check(in transaction: any StateTransaction, agent: String) async throws {
        guard try await transaction.renewLease(account: agent, holder: holder, token: token, now: at, ttl: ttl) != nil
        else { throw LeaseLost(agent: agent) }
    }
}

extension AccountPass {
    /// The fence of this pass, captured for a transaction's closure: the renewal counts from the
    /// run loop's clock when it gave one (a long pass keeps its lease), never earlier than the
    /// pass's `now`.
    var fenceArguments: Fence {
        let at = max(now, runner.configuration.leaseClock?() ?? now)
        return Fence(
            holder: runner.configuration.holder, token: access.leaseToken, ttl: runner.configuration.leaseTTL, at: at)
    }

    /// A transaction fenced by `fence` committed: the lease runs until `fence`'s instant plus its
    /// time (what the client's gate measures the next request against).
    func committed(_ fence: Fence) {
        access.lease.renewed(until: fence.at.addingTimeInterval(fence.ttl))
    }

    /// The gate of this pass's client (`LeaseWatch.admit`): nil without a run loop's clock
    /// (`plan`, tests on a fixed clock: a pass's instant does not move, so neither does its lease).
    func requestGate() -> RequestGate? {
        guard let clock = runner.configuration.leaseClock else { return nil }
        let renewal = LeaseWatch.Renewal(
            store: store, agent: agent, holder: runner.configuration.holder, ttl: runner.configuration.leaseTTL,
            floor: now, clock: clock, logger: logger)
        let watch = access.lease
        return { endpoint in await watch.admit(endpoint: endpoint, renewal) }
    }

    /// Whether the pass may still send for its agent: the gate's answer, asked ahead of a step
    /// that records something before its request leaves (a challenge's attempt is counted first).
    func mayStillSend(_ endpoint: String) async -> Bool {
        guard let gate = requestGate() else { return !access.leaseLost }
        return await gate(endpoint) == nil
    }

    /// Notes a lost lease (once): the pass sends and journals nothing more for the agent.
    func noteLeaseLost(_ error: any Error) {
        guard error is LeaseLost, !access.leaseLost else { return }
        access.leaseLost = true
        logger.warning(
            "lease taken over by another runner during the pass; this runner stops for the agent",
            metadata: ["agent": "\(agent)", "event": "lease_lost"])
    }

    /// The agent is reported locked, as when the pass could not take the lease at its start.
    func reportLeaseLost(into report: inout RunReport) {
        if access.leaseLost, !report.locked.contains(agent) { report.locked.append(agent) }
    }

    /// At the end of a turn whose lease could not be confirmed: a transient failure besides the
    /// agent reported locked (the runner's pass then asks whether the store answers at all).
    func reportLeaseUnconfirmed(into report: inout RunReport) {
        reportLeaseLost(into: &report)
        if case .unconfirmed = access.lease.loss { report.transientFailures += 1 }
    }

    /// A write's fate in words when the state could not record it.
    static func unrecorded(_ error: any Error) -> String {
        if let lost = error as? LeaseLost { return "\(lost)" }
        return "the state could not be written"
    }
}
