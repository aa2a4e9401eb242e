import Foundation
import MoltbookAPI
import RateLimiting
import Recipes
import Storage

/// The one read a pass starts from: everything the machine decides on (`AccountMachine.Snapshot`)
/// and the stored limiter and account info, in one consistent view of the store.
extension AccountPass {
    /// What the store holds for the account, as read.
    struct StoredState: Sendable {
        var limiter: Data?
        var account: Data?
        var pauses: [AccountPause]
        var pending: [JournalEntry]
        var cursors: [String: Date]
        var dailyCounts: Data?
        var queueLedger: Data?
        var legacyQueuePositions: [String: Int]
        var deferredSteps: Data? = nil
        var clockBehind: Data? = nil
    }

    /// Reads the account's state in one read; nil (logged) when the store fails: the pass then
    /// plans and sends nothing rather than decide on an empty view (no facts: a second vote).
    func readSnapshot() async -> StoredState? {
        let agent = agent
        let jobs = runner.jobsByAgent[agent] ?? []
        do {
            return try await store.read { reader in
                var cursors: [String: Date] = [:]
                for ref in jobs {
                    if let cursor = try await reader.scheduleCursor(of: ref.recipe, job: ref.job.id.value) {
                        cursors[ref.key] = cursor
                    }
                }
                // Queue positions of older state were kept by index under the recipe's name.
                var positions: [String: Int] = [:]
                for ref in jobs {
                    for (recipe, queue) in ref.legacyQueues
                    where positions[PlanningMachine.legacyKey(recipe, queue)] == nil {
                        if let position = try await reader.queuePosition(recipe: recipe, queue: queue) {
                            positions[PlanningMachine.legacyKey(recipe, queue)] = position.next
                        }
                    }
                }
                return StoredState(
                    limiter: try await reader.limiterState(account: agent, key: "limiter"),
                    account: try await reader.limiterState(account: agent, key: "account"),
                    pauses: try await reader.pauses(account: agent),
                    pending: try await reader.pendingJournalEntries(account: agent),
                    cursors: cursors,
                    dailyCounts: try await reader.limiterState(account: agent, key: DailyCounts.stateKey),
                    queueLedger: try await reader.limiterState(account: agent, key: QueueLedger.stateKey),
                    legacyQueuePositions: positions,
                    deferredSteps: try await reader.limiterState(account: agent, key: DeferredSteps.stateKey),
                    clockBehind: try await reader.limiterState(account: agent, key: ClockBehind.stateKey))
            }
        } catch {
            logger.error("could not read the state", metadata: ["agent": "\(agent)", "error": "\(error)"])
            return nil
        }
    }

    /// The machine's snapshot of `stored`, with the limiter and identity as the pass holds them.
    func snapshot(from stored: StoredState) -> AccountMachine.Snapshot {
        AccountMachine.Snapshot(
            limiter: limiter, pending: stored.pending, cursors: stored.cursors,
            dailyCounts: stored.dailyCounts, queueLedger: stored.queueLedger, deferredSteps: stored.deferredSteps,
            clockBehind: stored.clockBehind, legacyQueuePositions: stored.legacyQueuePositions, identity: identity,
            identityKnown: info.name != nil)
    }

    /// The targets already acted on, per kind: the store's dedup facts, and the journal's
    /// entries for the writes that must never be planned twice.
    ///
    /// A vote or comment already journaled for a target — pending, in flight, uncertain, or
    /// done with its fact lost to a crash — counts as done: planning it again for the next
    /// occurrence would send a second vote (toggling the first off) or a second comment. Found
    /// by the SIGKILL test (votes_removed > 0).
    ///
    /// The sets are kept as the store returns them, never merged: after a month an account has
    /// thousands of targets, and a pass only asks about the few posts a selector fetched.
    static func facts(of agent: String, in reader: any StateReader) async throws -> DoneTargets {
        var result = DoneTargets()
        for kind in PlannedWrite.Kind.allCases {
            guard let (dedupKind, value) = fact(for: kind) else { continue }
            result.add(kind, try await reader.dedupTargets(account: agent, kind: dedupKind, value: value))
        }
        let journaled = try await reader.journalTargets(
            account: agent, actions: Set(DoneTargets.journaledOnce.map(\.rawValue)))
        for (action, targets) in journaled {
            guard let kind = PlannedWrite.Kind(rawValue: action) else { continue }
            result.add(kind, targets)
        }
        return result
    }
}
