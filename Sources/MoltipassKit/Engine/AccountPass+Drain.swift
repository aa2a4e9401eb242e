import Foundation
import MoltbookAPI
import Scheduling
import Storage

extension AccountPass {
    /// Sends the account's pending journal entries that are due, through the limiter.
    func drain(into report: inout RunReport) async {
        let agent = agent
        let entries = (try? await store.read { try $0.pendingJournalEntries(account: agent) }) ?? []
        for entry in entries {
            journalContext[entry.key] = (recipes.displayName(entry.recipe, job: entry.job), entry.job)
        }
        // An open challenge blocks every other write of the account until it is answered.
        switch await settleChallenges(into: &report) {
        case .clear:
            break
        case .waiting(let until, let reason):
            await reportPending(into: &report, reason: "verification challenge outstanding: \(reason)", until: until)
            if let until { report.due(at: until) }
            return
        case .paused(let until):
            await reportPending(
                into: &report, reason: "account paused after a failed challenge",
                until: until == .distantFuture ? nil : until)
            return
        }
        // Classes the limiter already deferred in this pass, with until when. Later entries of
        // such a class wait too, without a reservation and a store write each: a backlog of
        // thousands of comments behind a daily cap otherwise costs a write per entry per pass.
        var blocked: [LimitClass: Date] = [:]
        for entry in entries {
            if authBroken != nil || clientError != nil { break }
            if entry.state == .intent || entry.state == .failed,
                let limitClass = PlannedWrite.Kind(rawValue: entry.action).map({ PlannedWrite(kind: $0).limitClass }),
                let until = blocked[limitClass]
            {
                report.items.append(item(entry, entry.action, .deferred, "behind an earlier deferred write", until))
                continue
            }
            guard let payload = entry.payload, let write = PlannedWrite(payload: payload)
            else {
                _ = try? await store.markFailed(
                    key: entry.key, reason: "journal payload unreadable", retryAt: nil, at: now)
                report.items.append(item(entry, "?", .failed, "journal payload unreadable"))
                continue
            }
            if let next = entry.nextAttemptAt, next > now {
                report.items.append(item(entry, write.summary, .deferred, entry.lastError ?? "scheduled", next))
                report.due(at: next)
                // Later writes of the class wait behind it: a queue's next post must not overtake
                // one that is waiting for a retry (noted by scripts/reliability: possible reordering).
                if entry.attempts > 0, blocked[write.limitClass] == nil { blocked[write.limitClass] = next }
                continue
            }
            let itemsBefore = report.items.count
            let stop = await attempt(entry, write, into: &report)
            if entry.state == .intent || entry.state == .failed, report.items.count == itemsBefore + 1,
                let last = report.items.last, last.outcome == .deferred, let until = last.until
            {
                blocked[write.limitClass] = until
            }
            await saveLimiter()
            if stop { break }
        }
    }

    /// Lists pending entries as deferred (the account is paused).
    func reportPending(into report: inout RunReport, reason: String, until: Date?) async {
        let agent = agent
        let entries = (try? await store.read { try $0.pendingJournalEntries(account: agent) }) ?? []
        for entry in entries {
            let summary = entry.payload.flatMap(PlannedWrite.init(payload:))?.summary
            report.items.append(item(entry, summary ?? entry.action, .deferred, reason, until))
        }
    }

    /// One entry: reconcile if its outcome is unknown, then send if the limiter admits it.
    /// Returns true when the account must stop for this pass.
    func attempt(_ entry: JournalEntry, _ write: PlannedWrite, into report: inout RunReport) async -> Bool {
        guard let client = await requireClient() else { return true }
        if entry.state == .sent || entry.state == .uncertain {
            switch await reconcile(entry, write, client: client, into: &report) {
            case .settled: return false
            case .send: break
            case .stop: return true
            }
        }
        guard await probeAfterBreaker(into: &report) else {
            report.items.append(item(entry, write.summary, .deferred, "auth breaker: the probe read failed"))
            return true
        }
        switch await serverCheck(entry, write, client: client, into: &report) {
        case .proceed: break
        case .settled: return false
        case .stop: return true
        }
        let classes: [LimitClass] = [.write, write.limitClass]
        switch limiter.reserve(classes, at: now) {
        case .deferred(let until, let because):
            _ = try? await store.markFailed(key: entry.key, reason: "deferred by \(because)", retryAt: until, at: now)
            report.items.append(item(entry, write.summary, .deferred, "\(because)", until))
            report.due(at: until)
            return false
        case .never(let because):
            _ = try? await store.markFailed(key: entry.key, reason: "never allowed: \(because)", retryAt: nil, at: now)
            report.items.append(item(entry, write.summary, .failed, "never allowed: \(because)"))
            return false
        case .allowed:
            break
        }
        // The reservation is stored with the `sent` mark: a run killed at any point after the
        // request left still has it charged (found by scripts/reliability/kill9: a post journaled
        // done by a run killed before it saved its limiter drew a 429 on the next run).
        let limiterState = limiter.serialized()
        // Fingerprinted as it leaves, whatever comes back (a failed challenge, an unknown outcome):
        // the server fingerprints on submission.
        let content = contentRecord(write, key: entry.key)
        do {
            try await store.transaction { [agent, key = entry.key, now] transaction in
                _ = try transaction.markSent(key: key, at: now)
                try transaction.setLimiterState(limiterState, account: agent, key: "limiter", at: now)
                if let content { try transaction.recordContent(content) }
            }
            storedLimiter = limiterState
            remember(limiter, as: limiterState)
        } catch {
            limiter.cancel(write.limitClass, reservedAt: now)
            report.transientFailures += 1
            return true
        }
        let outcome = await WriteSender.send(write, with: client)
        return await record(outcome, entry: entry, write: write, into: &report)
    }

    enum ReconcileStep { case settled, send, stop }

    /// How many sends a write may take before one whose answer was unclear (5xx, unreadable)
    /// and whose copy reading back cannot find is given up. Attempts refused by a 429 count
    /// too (the journal keeps one count), hence a margin above the three unclear answers meant.
    static let maxUnclearSends = 5

    /// The class whose limiter a response's `X-RateLimit-*` headers describe: the open-source
    /// server reports the post and comment limiters there on those endpoints (moltbook-api.md
    /// §6.2); everywhere else they describe the request window. A header from one endpoint
    /// limits that endpoint's class, never every write.
    static func windowClass(of write: PlannedWrite) -> LimitClass {
        switch write.kind {
        case .post, .comment: write.limitClass
        default: .write
        }
    }

    /// Folds the hints of the response to `write` into the limiter (`X-RateLimit-*` to the
    /// class `windowClass(of:)` names).
    func absorb(
        _ hint: RateLimitHint, status: Int, from write: PlannedWrite, action: LimitClass?, reservedAt: Date? = nil
    ) {
        absorb(
            hint, status: status, action: action, request: .write, reservedAt: reservedAt,
            window: Self.windowClass(of: write))
    }

    func reconcile(_ entry: JournalEntry, _ write: PlannedWrite, client: MoltbookClient, into report: inout RunReport)
        async -> ReconcileStep
    {
        if entry.state == .sent {
            // The process died with this request in flight.
            _ = try? await store.markUncertain(key: entry.key, reason: "in flight when the previous run ended", at: now)
        }
        guard case .allowed = limiter.reserve([.read], at: now) else {
            let until = limiter.earliest([.read], at: now).date
            report.items.append(item(entry, write.summary, .deferred, "read-back waits for the read budget", until))
            return .settled
        }
        do {
            let verdict = try await Reconciler.reconcile(
                write, agent: identity, intentAt: entry.sentAt ?? entry.createdAt, client: client)
            switch verdict {
            case .applied(let remoteID):
                // The run that sent it may have died before saving its limiter: the write counts
                // against the limits at the time it was sent (found by scripts/reliability/kill9).
                limiter.record([.write, write.limitClass], at: entry.sentAt ?? entry.updatedAt)
                await finish(entry, write, remoteID: remoteID, challenge: nil)
                report.items.append(item(entry, write.summary, .done, "read back: it had been applied"))
                return .settled
            case .notApplied where entry.attempts >= Self.maxUnclearSends:
                // Sent this often, each answer unclear and no copy found: a server that keeps
                // failing this request. Every try may burn its limit slot, so it stops here.
                let reason =
                    "sent \(entry.attempts) times, the last without a clear answer, and not found on the server; "
                    + "not sent again"
                _ = try? await store.markFailed(key: entry.key, reason: reason, retryAt: nil, at: now)
                report.items.append(item(entry, write.summary, .failed, reason))
                return .settled
            case .notApplied:
                return .send
            case .unknowable:
                // A vote on a server that shows no vote state: a second vote would toggle it off.
                let reason = "vote outcome unknown and the server does not show votes; never re-sent"
                _ = try? await store.markFailed(key: entry.key, reason: reason, retryAt: nil, at: now)
                report.items.append(item(entry, write.summary, .uncertain, reason))
                return .settled
            }
        } catch {
            absorb(error.rateLimit, status: error.status ?? 0, action: nil, request: .read)
            report.items.append(item(entry, write.summary, .uncertain, "read-back failed: \(error.message)"))
            report.transientFailures += 1
            return error.code == .rateLimited ? .stop : .settled
        }
    }

    /// Journals an attempt's outcome. Returns true when the account must stop for this pass.
    func record(_ outcome: WriteSender.Outcome, entry: JournalEntry, write: PlannedWrite, into report: inout RunReport)
        async -> Bool
    {
        let limitClass = write.limitClass
        switch outcome {
        case .voteRemoved(let hint, let status):
            absorb(hint, status: status, from: write, action: limitClass)
            return await restoreVote(entry, write, into: &report)
        case .done(let remoteID, let challenge, let hint, let status):
            absorb(hint, status: status, from: write, action: limitClass)
            await finish(entry, write, remoteID: remoteID, challenge: challenge)
            await closeBreakerIfOpen()
            if let challenge {
                report.items.append(
                    item(
                        entry, write.summary, .challenged, "verification challenge \(short(challenge.code))",
                        challenge.expiresAt))
                // No further write while a challenge is outstanding: answer it now.
                switch await settleChallenges(into: &report) {
                case .clear: return false
                case .waiting(let until, _):
                    // The next pass answers again (a lost answer with attempts left) or waits out
                    // the limiter: at that instant, not at the next occurrence.
                    if let until { report.due(at: until) }
                    return true
                case .paused: return true
                }
            }
            report.items.append(item(entry, write.summary, .done, remoteID.map { "id \($0)" }))
            logger.debug("done", metadata: ["agent": "\(agent)", "action": "\(write.summary)"])
            return false
        case .rateLimited(let error):
            absorb(error.rateLimit, status: 429, from: write, action: limitClass, reservedAt: now)
            let until = limiter.earliest([.write, limitClass], at: now).date ?? now.addingTimeInterval(60)
            _ = try? await store.markFailed(key: entry.key, reason: "429: \(error.message)", retryAt: until, at: now)
            report.items.append(item(entry, write.summary, .deferred, "server said 429", until))
            report.due(at: until)
            return false
        case .uncertain(let error):
            absorb(error.rateLimit, status: error.status ?? 0, from: write, action: nil)
            _ = try? await store.markUncertain(key: entry.key, reason: error.message, at: now)
            report.items.append(item(entry, write.summary, .uncertain, error.message))
            return false
        case .retryable(let error):
            limiter.cancel(limitClass, reservedAt: now)
            let retry = now.addingTimeInterval(60)
            _ = try? await store.markFailed(key: entry.key, reason: error.message, retryAt: retry, at: now)
            report.items.append(item(entry, write.summary, .deferred, error.message, retry))
            report.transientFailures += 1
            return true
        case .authBroken(let error):
            // Refused before anything happened: the write stays pending for when the account works again.
            limiter.cancel(limitClass, reservedAt: now)
            _ = try? await store.markFailed(key: entry.key, reason: error.message, retryAt: now, at: now)
            await authFailure(error, into: &report)
            report.items.append(item(entry, write.summary, .deferred, error.message, report.paused[agent]))
            return true
        case .rejected(let error):
            absorb(error.rateLimit, status: error.status ?? 0, from: write, action: nil)
            if error.code == .conflict, [.follow, .unfollow, .subscribe, .unsubscribe].contains(write.kind) {
                await finish(entry, write, remoteID: nil, challenge: nil)
                report.items.append(item(entry, write.summary, .done, "already so"))
                return false
            }
            _ = try? await store.markFailed(key: entry.key, reason: error.message, retryAt: nil, at: now)
            report.items.append(item(entry, write.summary, .failed, error.message))
            return false
        }
    }

    func dedupRecord(_ write: PlannedWrite, key: String) -> DedupRecord? {
        guard let (kind, value) = Self.fact(for: write.kind), let target = write.target else { return nil }
        return DedupRecord(
            account: agent, kind: kind, target: target, value: value ?? write.contentHash, recordedAt: now,
            journalKey: key)
    }

    /// A write was applied: its challenge (stored first, before anything else is done with it),
    /// the journal's `done`, the dedup fact and the limiter with the response's hints absorbed,
    /// in one transaction.
    func finish(_ entry: JournalEntry, _ write: PlannedWrite, remoteID: String?, challenge: VerificationChallenge?)
        async
    {
        let stored = challenge.map { challenge in
            StoredChallenge(
                code: challenge.code, account: agent, text: challenge.text, expiresAt: challenge.expiresAt,
                contentType: challenge.contentType ?? write.kind.rawValue, contentID: challenge.contentID ?? remoteID,
                journalKey: entry.key, createdAt: now,
                answerPath: challenge.answerPath == VerificationChallenge.defaultAnswerPath ? nil : challenge.answerPath
            )
        }
        let fact = dedupRecord(write, key: entry.key)
        let (limiterData, info) = limiterWrites()
        do {
            try await store.transaction { [agent, key = entry.key, now] transaction in
                if let stored { _ = try transaction.recordChallenge(stored) }
                _ = try transaction.markDone(key: key, remoteID: remoteID, at: now)
                if let fact { try transaction.recordDedup(fact) }
                try Self.write(limiter: limiterData, info: info, account: agent, at: now, in: transaction)
            }
            self.stored(limiterData, info)
        } catch {
            // The write happened; if even this fails, the entry stays `sent` and the next pass
            // reconciles it by reading back. The challenge, if any, must not be lost: try alone.
            logger.error("could not journal a done write", metadata: ["agent": "\(agent)", "error": "\(error)"])
            if let stored { _ = try? await store.transaction { try $0.recordChallenge(stored) } }
        }
    }

    func item(
        _ entry: JournalEntry, _ action: String, _ outcome: RunReport.Item.Outcome, _ reason: String? = nil,
        _ until: Date? = nil
    ) -> RunReport.Item {
        RunReport.Item(
            agent: agent, recipe: recipes.displayName(entry.recipe, job: entry.job), job: entry.job, action: action,
            outcome: outcome, reason: reason,
            until: until, key: entry.key, step: entry.step)
    }
}
