import Foundation
import MoltbookAPI
import Recipes
import Storage

/// Pending writes have a life (issue 19, observation 3): a write waits (for a limit, a pause, a
/// server hint) at most until it expires, and one whose job is gone is never sent. Expired,
/// orphaned writes are withdrawn unsent, cancelled ones finished unsent, and a post gives its
/// content-queue item back, so nothing is lost and nothing stale goes out.
public enum PendingWrites {
    /// Where an account's content-ledger generation is kept (with the limiter's state): it
    /// changes whenever a record is forgotten, so a runner that keeps the ledger's sightings
    /// between passes knows to read it whole again.
    static let ledgerGenerationKey = "ledger-generation"

    /// Whether `entry` is a write that has not left and may still be dropped: planned, or failed
    /// and waiting for a retry. A `sent` or `uncertain` one is being settled by reading back.
    public static func isDroppable(_ entry: JournalEntry) -> Bool {
        entry.state == .intent || (entry.state == .failed && !entry.isFinished)
    }

    /// When a write of `job` planned for `occurrence` expires: `expire_after` after the
    /// occurrence, else the job's next occurrence (a write is never older than one period of its
    /// schedule), else (a one-shot) a day after it.
    public static func expiry(of occurrence: Date, job: Job, seed: String) -> Date {
        if let after = job.expireAfter { return occurrence.addingTimeInterval(TimeInterval(after)) }
        if let next = job.trigger.next(after: occurrence) {
            return job.trigger.fireDate(for: next, seed: seed)
        }
        return occurrence.addingTimeInterval(86_400)
    }

    /// How a waiting write leaves the journal unsent.
    package enum Drop {
        /// Expired or orphaned: withdrawn as if never planned (a later occurrence may act on its
        /// target again).
        case withdraw
        /// Cancelled by the operator: finished (`failed`, no retry, with the reason), so its
        /// target stays acted on and no later occurrence plans it again.
        case cancel(reason: String)
    }

    /// Drops the entries under `keys` that are still waiting, in `transaction`, and gives their
    /// queue items back to the account's queue ledger. Returns the entries dropped (those that
    /// had left already are not touched).
    @discardableResult
    package static func drop(
        _ keys: [String], account: String, how: Drop, at now: Date, in transaction: any StateTransaction
    ) async throws -> [JournalEntry] {
        var dropped: [JournalEntry] = []
        var items: [String] = []
        for key in keys {
            guard let entry = try await transaction.journalEntry(key: key), entry.account == account, isDroppable(entry)
            else { continue }
            switch how {
            case .withdraw:
                guard let withdrawn = try await transaction.withdrawUnsent(key: key) else { continue }
                dropped.append(withdrawn)
            case .cancel(let reason):
                dropped.append(try await transaction.markFailed(key: key, reason: reason, retryAt: nil, at: now))
            }
            // A refused attempt was fingerprinted when it left; the server never took it.
            try await forgetContent(of: key, account: account, at: now, in: transaction)
            if let item = entry.payload.flatMap(PlannedWrite.init(payload:))?.queueItem { items.append(item) }
        }
        if !items.isEmpty {
            var ledger =
                try await transaction.limiterState(account: account, key: QueueLedger.stateKey)
                .flatMap(QueueLedger.init(stored:)) ?? QueueLedger()
            for item in items { ledger.giveBack(item) }
            try await transaction.setLimiterState(ledger.stored, account: account, key: QueueLedger.stateKey, at: now)
        }
        return dropped
    }

    /// Forgets the content-ledger record of the write `key` (the server does not hold its
    /// text), and makes runners that keep the ledger's sightings read it whole again.
    package static func forgetContent(
        of key: String, account: String, at now: Date, in transaction: any StateTransaction
    ) async throws {
        if try await transaction.forgetContent(account: account, journalKey: key) > 0 {
            try await transaction.setLimiterState(
                Data("\(now.timeIntervalSince1970)|\(key)".utf8), account: account, key: ledgerGenerationKey, at: now)
        }
    }
}

extension PendingWrites {
    /// The waiting writes of `pending` to withdraw at `now`: expired ones, and those whose recipe
    /// or job is not among `known` (removed or renamed away), each with its report reason.
    /// Decided before planning, so an occurrence is not skipped for waiting behind a write about
    /// to expire.
    static func stale(_ pending: [JournalEntry], known: [Recipe], now: Date) -> [AccountMachine.StaleWrite] {
        var drops: [AccountMachine.StaleWrite] = []
        for entry in pending where isDroppable(entry) {
            guard let recipe = known.first(where: { $0.stateNames.contains(entry.recipe) }),
                let job = recipe.jobs.first(where: { $0.id.value == entry.job })
            else {
                drops.append(
                    .init(
                        entry: entry,
                        reason: "orphaned: job \(entry.recipe)/\(entry.job) is in none of the recipes given; not sent"))
                continue
            }
            let expiry = expiry(of: entry.occurrence, job: job, seed: recipe.seed)
            if now >= expiry {
                drops.append(
                    .init(
                        entry: entry,
                        reason: "expired \(MoltbookDateText.iso(expiry)) ("
                            + (job.expireAfter.map { "expire_after \(DurationText.format($0))" }
                                ?? "the job's next occurrence")
                            + "); not sent"
                            + (entry.lastError.map { "; it waited: \($0)" } ?? "")))
            }
        }
        return drops
    }
}

extension AccountPass {
    /// Withdraws the stale writes the machine found, with a report line each; false when the
    /// store failed (nothing withdrawn).
    func drop(_ stale: [AccountMachine.StaleWrite], into report: inout RunReport) async -> Bool {
        let (agent, now, keys) = (agent, now, stale.map(\.entry.key))
        do {
            _ = try await store.transaction { transaction in
                try await PendingWrites.drop(keys, account: agent, how: .withdraw, at: now, in: transaction)
            }
        } catch {
            logger.error("could not drop stale writes", metadata: ["agent": "\(agent)", "error": "\(error)"])
            return false
        }
        for drop in stale {
            let action = drop.entry.payload.flatMap(PlannedWrite.init(payload:))?.summary ?? drop.entry.action
            report.items.append(item(drop.entry, action, .skipped, drop.reason))
            // Expiry is the ordinary end of a write a faster schedule superseded; an orphan is news.
            logger.log(
                level: drop.reason.hasPrefix("orphaned") ? .warning : .info, "pending write dropped",
                metadata: ["agent": "\(agent)", "action": "\(action)", "why": "\(drop.reason)"])
        }
        return true
    }
}
