import Foundation
import MoltbookAPI
import Recipes
import Storage

/// A post or comment the duplicate guard has seen: sent (the content ledger) or waiting to be
/// sent (the journal), with what the report line says of it.
struct ContentSighting: Sendable, Equatable {
    var kind: String
    var at: Date
    var journalKey: String?
    var excerpt: String
    var sent: Bool
}

/// The duplicate guard (issue 18): Moltbook fingerprints what agents publish and suspends for
/// repeats — an hourly cron of one text earned a 23-hour suspension, re-posting content whose
/// challenge failed counted as offense #2 (moltbook-api.md §6.1). A post or comment whose
/// normalised text (case, white space, punctuation and markup aside) the agent already sent
/// within `duplicateWindow`, or has waiting in the journal, is not planned: the report says so
/// and names the earlier one. A queue item so skipped is taken (the queue goes on).
extension AccountPass {
    /// How far back the guard compares: 30 days.
    static let duplicateWindow: TimeInterval = 30 * 86_400

    /// `writes` without the posts and comments that repeat content the agent sent or planned.
    func withoutDuplicates(
        _ writes: [StepExpander.Expanded], recipe: Recipe, job: Job, queue: ContentQueue?, taken: inout Set<String>,
        planned: inout [String: ContentSighting], into report: inout RunReport
    ) async -> [StepExpander.Expanded] {
        var kept: [StepExpander.Expanded] = []
        for expanded in writes {
            guard let print = ContentFingerprint(expanded.write) else {
                kept.append(expanded)
                continue
            }
            let seen = await contentSightings()
            let earlier = [planned[print.exact], seen[print.exact]].compactMap { $0 }
                .first { $0.journalKey != expanded.key }
            guard let earlier else {
                planned[print.exact] = ContentSighting(
                    kind: expanded.write.kind.rawValue, at: now, journalKey: expanded.key,
                    excerpt: Self.excerpt(expanded.write), sent: false)
                kept.append(expanded)
                continue
            }
            if let index = expanded.queueIndex, let queue { taken.insert(QueueLedger.fingerprint(queue.items[index])) }
            let when = earlier.sent ? "sent \(MoltbookDateText.iso(earlier.at))" : "waiting to be sent"
            report.items.append(
                item(
                    recipe, job, expanded.write.summary, .skipped,
                    "duplicate content: the same text as the \(earlier.kind) \(when) (\"\(earlier.excerpt)\""
                        + (earlier.journalKey.map { ", journal key \($0)" } ?? "")
                        + "); not sent: Moltbook suspends agents for repeated content"))
            logger.warning(
                "duplicate content not sent",
                metadata: ["agent": "\(agent)", "action": "\(expanded.write.summary)", "earlier": "\(when)"])
        }
        return kept
    }

    /// What the guard compares against: the content ledger within the window and the journal's
    /// posts and comments not yet sent. Read once per pass.
    func contentSightings() async -> [String: ContentSighting] {
        if let contentSeen { return contentSeen }
        let (agent, since) = (agent, now.addingTimeInterval(-Self.duplicateWindow))
        let read = try? await store.read { reader in
            (try reader.contentRecords(account: agent, since: since), try reader.pendingJournalEntries(account: agent))
        }
        var seen: [String: ContentSighting] = [:]
        for record in read?.0 ?? [] {
            seen[record.fingerprint] = ContentSighting(
                kind: record.kind, at: record.recordedAt, journalKey: record.journalKey, excerpt: record.excerpt,
                sent: true)
        }
        for entry in read?.1 ?? [] where entry.state == .intent || entry.state == .failed {
            guard let write = entry.payload.flatMap(PlannedWrite.init(payload:)), let print = ContentFingerprint(write),
                seen[print.exact] == nil
            else { continue }
            seen[print.exact] = ContentSighting(
                kind: write.kind.rawValue, at: entry.createdAt, journalKey: entry.key, excerpt: Self.excerpt(write),
                sent: false)
        }
        contentSeen = seen
        return seen
    }

    /// The start of what a write publishes, for report lines.
    static func excerpt(_ write: PlannedWrite) -> String {
        PlannedWrite.excerpt(write.kind == .post ? (write.title ?? "") : (write.content ?? ""))
    }

    /// The ledger record of a post or comment about to be sent (nil for other writes).
    func contentRecord(_ write: PlannedWrite, key: String) -> ContentRecord? {
        ContentFingerprint(write).map {
            $0.record(account: agent, kind: write.kind.rawValue, at: now, key: key, excerpt: Self.excerpt(write))
        }
    }
}
