import Foundation
import MoltbookAPI
import RateLimiting
import Storage

/// After a challenge, the server is the record (issue 33, observation 5). moltbook.com keeps a
/// challenged post or comment (pending, hidden) whatever becomes of its challenge, and sending
/// it again is a duplicate that suspends; other servers keep nothing unverified: they store the
/// content only once its challenge is answered, or expect the client to send it again then. So
/// whether challenged content exists is read, never assumed:
///
/// - after a right answer, always (verified content is never hidden, so absence is absence);
/// - after a failed or expired challenge, only once the server showed it keeps nothing
///   unverified: a verified challenge's content was found absent (`AccountInfo.keepsUnverified`).
///   When that is first learned, the content of the agent's earlier failed challenges is looked
///   for too. Until then the content stays as it was (published unverified, never sent again):
///   a server that keeps it hidden (moltbook.com, and the community mock, whose challenge names
///   no content) would count a second copy as a duplicate, and absence from a listing that
///   hides unverified content proves nothing.
///
/// Content proved absent (an exact lookup, or a listing that covers the interval since it was
/// sent) was not published: it is sent again as a new journal entry (`JournalEntry.key` with
/// `~N`), which waits for the drain like any write, so the challenge pause and the streak's
/// stop hold it back until they allow it. At most `maxSends` sends of one text; unknown is
/// never sent again.
package enum ChallengedContent {
    /// Sends of one challenged text, the first included, before the engine gives up on it.
    static let maxSends = 3

    /// What to do with challenged content once its challenge ended.
    enum FollowUp: Equatable {
        /// It is on the server (verified or not): nothing to do.
        case kept
        /// Not there: send it again (`evidence` says how that is known) as send number `send`.
        case sendAgain(evidence: String, send: Int)
        /// Not there, and sent `maxSends` times already.
        case giveUp(reason: String)
        /// Whether it is there cannot be read: left as it is.
        case unknown(reason: String)
    }

    /// Whether content whose challenge ended (`verified` or not) is looked for at all.
    static func mustLook(verified: Bool, keepsUnverified: Bool?) -> Bool {
        verified || keepsUnverified == false
    }

    /// The follow-up for the verdict on the content of the journal entry `key`.
    static func followUp(_ verdict: Reconciler.Verdict, key: String) -> FollowUp {
        switch verdict {
        case .applied: return .kept
        case .unknown(let reason): return .unknown(reason: reason)
        case .notApplied(let evidence):
            let sent = sends(key)
            guard sent < maxSends else {
                return .giveUp(reason: "the server kept none of \(sent) sends after their challenges (\(evidence))")
            }
            return .sendAgain(evidence: evidence, send: sent + 1)
        }
    }

    /// How many sends the entry `key` is the last of: 1, or N for `…~N`.
    package static func sends(_ key: String) -> Int {
        guard let mark = key.lastIndex(of: "~"), let number = Int(key[key.index(after: mark)...]) else { return 1 }
        return number
    }

    /// The key of send number `send` of the write first journaled as `key`'s base.
    package static func key(_ key: String, send: Int) -> String {
        let base = key.lastIndex(of: "~").map { String(key[..<$0]) } ?? key
        return "\(base)~\(send)"
    }
}

extension AccountPass {
    /// Reads whether the content of `challenge` (ended: `verified` or not) is on the server, and
    /// sends it again when it is proved absent (`ChallengedContent`).
    func confirmChallenged(_ challenge: StoredChallenge, verified: Bool, into report: inout RunReport) async {
        guard challenge.contentType == "post" || challenge.contentType == "comment", let key = challenge.journalKey,
            ChallengedContent.mustLook(verified: verified, keepsUnverified: info.keepsUnverified)
        else { return }
        guard let entry = try? await store.read({ try await $0.journalEntry(key: key) }), entry.state == .done,
            let write = entry.payload.flatMap(PlannedWrite.init(payload:)),
            let client = await requireClient()
        else { return }
        guard case .allowed = limiter.reserve([.read], at: now) else {
            logger.info(
                "whether challenged content was kept is not read: the read budget is spent",
                metadata: ["agent": "\(agent)", "key": "\(key.prefix(12))"])
            return
        }
        let verdict: Reconciler.Verdict
        do throws(APIError) {
            if write.kind == .post, let id = challenge.contentID {
                verdict = try await Self.exactPost(id, client: client)
            } else {
                verdict = try await Reconciler.reconcile(
                    write, agent: identity, intentAt: entry.sentAt ?? challenge.createdAt, client: client)
            }
        } catch {
            absorb(error.rateLimit, status: error.status ?? 0, action: nil, request: .read)
            logger.warning(
                "could not read whether challenged content was kept",
                metadata: ["agent": "\(agent)", "key": "\(key.prefix(12))", "error": "\(error.message)"])
            return
        }
        switch ChallengedContent.followUp(verdict, key: key) {
        case .kept:
            return
        case .unknown(let reason):
            logger.info(
                "whether challenged content was kept is unknown; left as it is",
                metadata: ["agent": "\(agent)", "key": "\(key.prefix(12))", "why": "\(reason)"])
        case .giveUp(let reason):
            report.items.append(item(entry, write.summary, .failed, reason))
        case .sendAgain(let evidence, let send):
            let learned = verified && info.keepsUnverified != false
            if verified { info.keepsUnverified = false }
            var again = entry.intent
            again.key = ChallengedContent.key(key, send: send)
            again.notBefore = now
            let (agent, now, original, intent) = (agent, now, key, again)
            let inserted: Bool
            do {
                inserted = try await store.transaction { transaction in
                    let recorded = try await transaction.recordIntent(intent, at: now)
                    // Its text is not on the server: no copy of it to guard against but the new send.
                    if recorded.inserted {
                        try await PendingWrites.forgetContent(of: original, account: agent, at: now, in: transaction)
                    }
                    return recorded.inserted
                }
            } catch {
                report.transientFailures += 1
                logger.error(
                    "could not journal challenged content to send again",
                    metadata: ["agent": "\(agent)", "error": "\(error)"])
                return
            }
            if inserted {
                report.items.append(
                    item(
                        entry, write.summary, .deferred,
                        "not on the server after its challenge (\(evidence)): sent again (send \(send) of at most "
                            + "\(ChallengedContent.maxSends)) when the challenge rules allow"))
            }
            if learned { await revisitFailedChallenges(into: &report) }
        }
    }

    /// The server was just found to keep nothing unverified: the content of the agent's earlier
    /// failed or expired challenges is looked for as well (each sent again at most once per
    /// send number: a successor already journaled is not journaled twice).
    func revisitFailedChallenges(into report: inout RunReport) async {
        let agent = agent
        guard
            let ended = try? await store.read({
                try await $0.challenges(account: agent, status: nil, limit: 50)
            })
        else { return }
        for challenge in ended where challenge.status == .failed || challenge.status == .expired {
            await confirmChallenged(challenge, verified: false, into: &report)
        }
    }

    /// An exact lookup of the post `id`: found, or not found (the server answers 404).
    static func exactPost(_ id: String, client: MoltbookClient) async throws(APIError) -> Reconciler.Verdict {
        do {
            _ = try await client.post(id: id)
            return .applied(remoteID: id)
        } catch  where error.code == .notFound {
            return .notApplied(evidence: "GET /posts/\(id) answers not found")
        }
    }
}
