import Foundation
import MoltbookAPI
import RateLimiting
import Storage

extension AccountPass {
    /// Lists pending entries as deferred (the account is paused).
    func reportPending(into report: inout RunReport, reason: String, until: Date?) async {
        let agent = agent
        let entries = (try? await store.read { try await $0.pendingJournalEntries(account: agent) }) ?? []
        for entry in entries {
            let summary = entry.payload.flatMap(PlannedWrite.init(payload:))?.summary
            report.items.append(item(entry, summary ?? entry.action, .deferred, reason, until))
        }
    }

    /// One entry: reconcile if its outcome is unknown, then send if the limiter admits it.
    /// Returns true when the account must stop for this pass.
    func attempt(_ entry: JournalEntry, _ write: PlannedWrite, into report: inout RunReport) async -> Bool {
        guard !access.leaseLost else { return true }
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
        // Charged when it leaves (the run loop's clock; plan and fixed-clock tests: the pass's now).
        if let clock = runner.configuration.leaseClock { machine.drain.advance(to: clock()) }
        switch machine.drain.admit(write) {
        case .deferred(let until, let because):
            _ = try? await store.markFailed(key: entry.key, reason: "deferred by \(because)", retryAt: until, at: now)
            report.items.append(item(entry, write.summary, .deferred, because, until))
            report.due(at: until)
            return false
        case .never(let because):
            _ = try? await store.markFailed(key: entry.key, reason: because, retryAt: nil, at: now)
            report.items.append(item(entry, write.summary, .failed, because))
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
        let content = contentRecords(write, key: entry.key)
        let fence = fenceArguments
        do {
            try await store.transaction { [agent, key = entry.key, now] transaction in
                try await fence.check(in: transaction, agent: agent)
                _ = try await transaction.markSent(key: key, at: now)
                try await transaction.setLimiterState(limiterState, account: agent, key: "limiter", at: now)
                for record in content { try await transaction.recordContent(record) }
            }
            committed(fence)
            memo.storedLimiter = limiterState
            remember(limiter, as: limiterState)
        } catch {
            machine.drain.withdraw(write)
            noteLeaseLost(error)
            if !(error is LeaseLost) { report.transientFailures += 1 }
            logger.error("could not mark a write sent", metadata: ["agent": "\(agent)", "error": "\(error)"])
            report.items.append(item(entry, write.summary, .deferred, Self.unrecorded(error) + "; not sent"))
            return true
        }
        let outcome = await WriteSender.send(write, with: client)
        return await record(outcome, entry: entry, write: write, into: &report)
    }

    enum ReconcileStep { case settled, send, stop }

    /// An unknown outcome's reason with the operator's way to settle it.
    static func settleHint(_ key: String, _ reason: String) -> String {
        "\(reason); an operator settles it with `moltipass settle \(key.prefix(12)) --sent` or `--not-sent`"
    }

    /// Folds the hints of the response to `write` into the limiter (`X-RateLimit-*` to the
    /// class `windowClass(of:)` names).
    func absorb(
        _ hint: RateLimitHint, status: Int, from write: PlannedWrite, action: LimitClass?, reservedAt: Date? = nil
    ) {
        absorb(
            hint, status: status, action: action, request: .write, reservedAt: reservedAt,
            window: DrainMachine.windowClass(of: write))
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
            switch machine.drain.handle(
                verdict: verdict, for: write, attempts: entry.attempts, sentAt: entry.sentAt ?? entry.updatedAt)
            {
            case .applied(let remoteID):
                let unrecorded = await finish(entry, write, remoteID: remoteID, challenge: nil)
                report.items.append(applied(entry, write, "read back: it had been applied", unrecorded: unrecorded))
                return .settled
            case .send:
                return .send
            case .giveUp(let reason, let outcome):
                _ = try? await store.markFailed(key: entry.key, reason: reason, retryAt: nil, at: now)
                report.items.append(item(entry, write.summary, outcome, reason))
                return .settled
            case .unknown(let reason, let readAgainAt):
                let asked = Self.settleHint(entry.key, reason)
                _ = try? await store.markUncertain(key: entry.key, reason: asked, retryAt: readAgainAt, at: now)
                report.items.append(item(entry, write.summary, .uncertain, asked, readAgainAt))
                report.due(at: readAgainAt)
                return .settled
            }
        } catch {
            absorb(error.rateLimit, status: error.status ?? 0, action: nil, request: .read)
            report.items.append(item(entry, write.summary, .uncertain, "read-back failed: \(error.message)"))
            report.transientFailures += 1
            return error.code == .rateLimited ? .stop : .settled
        }
    }

    /// Performs the machine's decision on an attempt's answer. Returns true when the account
    /// must stop for this pass.
    func record(_ outcome: WriteSender.Outcome, entry: JournalEntry, write: PlannedWrite, into report: inout RunReport)
        async -> Bool
    {
        if access.leaseLost, case .retryable(let error) = outcome {
            // Kept back by the lease's fence: not sent, and the journal (where it stays `sent`, to
            // be read back) is the lease holder's to change.
            machine.drain.withdraw(write)
            report.items.append(item(entry, write.summary, .deferred, error.message))
            return true
        }
        let decision = machine.drain.handle(outcome, for: write)
        for (limitClass, spacing) in decision.learned {
            logger.warning(
                "server stricter than the limit profile; spacing learned",
                metadata: ["agent": "\(agent)", "class": "\(limitClass.rawValue)", "spacing_s": "\(Int(spacing))"])
        }
        if decision.transient { report.transientFailures += 1 }
        var unrecorded: String?
        switch decision.journal {
        case .done(let remoteID)?:
            var challenge: VerificationChallenge?
            if case .applied(let asked) = decision.followUp { challenge = asked }
            unrecorded = await finish(entry, write, remoteID: remoteID, challenge: challenge)
        case .failed(let reason, let retryAt)?:
            _ = try? await store.markFailed(key: entry.key, reason: reason, retryAt: retryAt, at: now)
        case .uncertain(let reason)?:
            _ = try? await store.markUncertain(key: entry.key, reason: reason, at: now)
        case nil:
            break
        }
        switch decision.followUp {
        case .restoreVote:
            return await restoreVote(entry, write, into: &report)
        case .authFailure:
            if case .authBroken(let error) = outcome { await authFailure(error, into: &report) }
            report.items.append(item(entry, write.summary, .deferred, decision.reason, report.paused[agent]))
            return true
        case .applied(let challenge?):
            await closeBreakerIfOpen()
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
        case .applied(nil):
            if case .done = outcome { await closeBreakerIfOpen() }
            if decision.outcome == .done {
                logger.debug("done", metadata: ["agent": "\(agent)", "action": "\(write.summary)"])
            }
        case .none, .stop:
            break
        }
        if let outcome = decision.outcome {
            report.items.append(
                outcome == .done
                    ? applied(entry, write, decision.reason, unrecorded: unrecorded)
                    : item(entry, write.summary, outcome, decision.reason, decision.until))
        }
        if let until = decision.until, decision.outcome == .deferred, case .rateLimited = outcome {
            report.due(at: until)
        }
        return decision.followUp == .stop
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
    @discardableResult
    func finish(_ entry: JournalEntry, _ write: PlannedWrite, remoteID: String?, challenge: VerificationChallenge?)
        async -> String?
    {
        let stored = challenge.map { challenge in
            StoredChallenge(
                code: challenge.code, account: agent, text: challenge.text, expiresAt: challenge.expiresAt,
                contentType: challenge.contentType ?? write.kind.rawValue, contentID: challenge.contentID ?? remoteID,
                journalKey: entry.key, createdAt: now,
                answerPath: challenge.answerPath == VerificationChallenge.defaultAnswerPath
                    ? nil : challenge.answerPath,
                instructions: challenge.instructions)
        }
        let fact = dedupRecord(write, key: entry.key)
        let (limiterData, info) = limiterWrites()
        let fence = fenceArguments
        do {
            try await store.transaction { [agent, key = entry.key, now] transaction in
                try await fence.check(in: transaction, agent: agent)
                if let stored { _ = try await transaction.recordChallenge(stored) }
                _ = try await transaction.markDone(key: key, remoteID: remoteID, at: now)
                if let fact { try await transaction.recordDedup(fact) }
                try await Self.write(limiter: limiterData, info: info, account: agent, at: now, in: transaction)
            }
            committed(fence)
            self.stored(limiterData, info)
            return nil
        } catch {
            // The write happened; if even this fails, the entry stays `sent` and the next pass
            // (this runner's, or the lease's new holder's) reconciles it by reading back. The
            // challenge, if any, must not be lost: tried alone. Said as what it is: applied, not
            // recorded; never reported done.
            noteLeaseLost(error)
            logger.error("could not journal a done write", metadata: ["agent": "\(agent)", "error": "\(error)"])
            if let stored { _ = try? await store.transaction { try await $0.recordChallenge(stored) } }
            return Self.unrecorded(error)
        }
    }

    /// The report line of a write found applied: done when the journal recorded it, else
    /// uncertain, saying why (the next pass reads it back).
    func applied(_ entry: JournalEntry, _ write: PlannedWrite, _ reason: String?, unrecorded: String?)
        -> RunReport.Item
    {
        guard let unrecorded else { return item(entry, write.summary, .done, reason) }
        return item(
            entry, write.summary, .uncertain,
            (reason.map { "\($0); " } ?? "") + "applied, but not journaled (\(unrecorded)); read back on a later pass")
    }

    func item(
        _ entry: JournalEntry, _ action: String, _ outcome: RunReport.Item.Outcome, _ reason: String? = nil,
        _ until: Date? = nil
    ) -> RunReport.Item {
        machine.line(entry, action, outcome, reason, until)
    }
}
