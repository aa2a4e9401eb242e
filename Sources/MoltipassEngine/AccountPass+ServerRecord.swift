import Foundation
import MoltbookAPI
import RateLimiting
import Storage

/// The server is the record: before a vote or a comment (writes that cannot be undone twice),
/// one read asks the server what it already holds; the journal can be lost, copied or stale,
/// and an operator may have acted by hand.
extension AccountPass {
    enum ServerCheck { case proceed, settled, stop }

    /// Reads what the server holds for `write`'s target. `.settled` when the write is already
    /// in effect (journaled done) or cannot go now (deferred, or failed for good).
    func serverCheck(_ entry: JournalEntry, _ write: PlannedWrite, client: MoltbookClient, into report: inout RunReport)
        async -> ServerCheck
    {
        guard write.kind.checksServerFirst, let target = write.target else { return .proceed }
        switch limiter.reserve([.read], at: now) {
        case .allowed: break
        case .deferred(let until, let because):
            _ = try? await store.markFailed(
                key: entry.key, reason: "waits for a read of the server's record (\(because))", retryAt: until, at: now)
            report.items.append(
                item(entry, write.summary, .deferred, "the server-record read waits: \(because)", until))
            return .settled
        case .never(let because):
            report.items.append(item(entry, write.summary, .deferred, "reads never allowed: \(because)"))
            return .settled
        }
        do {
            // What the server already holds for the write: its id and the report's words, or nil.
            let found: (remoteID: String?, reason: String)?
            switch write.kind {
            case .reply:
                found = try await Reconciler.ownReply(write, agent: identity, client: client).map {
                    ($0.id, "already answered on the server (comment \($0.id)); not sent again")
                }
            case .directMessage:
                found = try await Reconciler.ownMessage(
                    after: target, in: write.conversation ?? "", agent: identity, client: client
                ).map { ($0.id, "already answered in the conversation (message \($0.id)); not sent again") }
            case .comment:
                // A selector's target takes one comment of the agent, whatever its text; a named
                // post may take one a day (a daily thread): there, only the same text counts.
                found = try await Reconciler.ownComment(
                    on: target, parentID: write.parentID, content: write.oncePerTarget ? nil : write.content,
                    agent: identity, client: client
                ).map { ($0.id, "already on the server (comment \($0.id)); not sent again") }
            case .upvotePost, .downvotePost:
                let state = try await Reconciler.postVote(target, client: client)
                found =
                    state != nil && state == write.desiredVote
                    ? (nil, "the vote is already on the server; not sent again") : nil
            case .post, .upvoteComment, .downvoteComment, .follow, .unfollow, .subscribe, .unsubscribe,
                .approveRequest:
                // Not `checksServerFirst` (guarded above).
                found = nil
            }
            guard let found else { return .proceed }
            let unrecorded = await finish(entry, write, remoteID: found.remoteID, challenge: nil)
            report.items.append(applied(entry, write, found.reason, unrecorded: unrecorded))
            return .settled
        } catch {
            // Kept back by the lease's fence: the journal is the lease holder's to change.
            if access.leaseLost {
                report.items.append(item(entry, write.summary, .deferred, error.message))
                return .stop
            }
            absorb(error.rateLimit, status: error.status ?? 0, action: nil, request: .read)
            if error.code == .notFound {
                let reason = "the target is gone from the server (\(error.message))"
                _ = try? await store.markFailed(key: entry.key, reason: reason, retryAt: nil, at: now)
                report.items.append(item(entry, write.summary, .failed, reason))
                return .settled
            }
            let until =
                error.code == .rateLimited
                ? (limiter.earliest([.read], at: now).date ?? now.addingTimeInterval(60)) : now.addingTimeInterval(60)
            _ = try? await store.markFailed(
                key: entry.key, reason: "server-record read failed: \(error.message)", retryAt: until, at: now)
            report.items.append(
                item(entry, write.summary, .deferred, "the server-record read failed: \(error.message)", until))
            report.due(at: until)
            if error.code != .rateLimited { report.transientFailures += 1 }
            return error.code == .rateLimited ? .stop : .settled
        }
    }

    /// The server took a vote back (`action: removed`): it was already there, and sending it
    /// toggled it off. Said in the report and sent once more to restore it; if that is taken
    /// back too, the vote is left alone (reported failed) rather than flipped again.
    func restoreVote(_ entry: JournalEntry, _ write: PlannedWrite, into report: inout RunReport) async -> Bool {
        let removed = "the vote was already on the server and sending it took it off"
        logger.warning("vote removed by the server; restoring it once", metadata: ["agent": "\(agent)"])
        guard !memo.restoringVotes.contains(entry.key) else {
            let reason = "\(removed) again while restoring it; left alone"
            _ = try? await store.markFailed(key: entry.key, reason: reason, retryAt: nil, at: now)
            report.items.append(item(entry, write.summary, .failed, reason))
            return false
        }
        memo.restoringVotes.insert(entry.key)
        _ = try? await store.markFailed(key: entry.key, reason: "\(removed); restoring it", retryAt: now, at: now)
        guard let current = try? await store.read({ [key = entry.key] in try await $0.journalEntry(key: key) }) ?? nil
        else {
            report.items.append(item(entry, write.summary, .uncertain, "\(removed); the journal could not be read"))
            return true
        }
        let before = report.items.count
        let stop = await attempt(current, write, into: &report)
        if report.items.count > before, report.items[before].outcome == .done {
            report.items[before].reason = "\(removed); sent again to restore it"
        }
        return stop
    }
}
