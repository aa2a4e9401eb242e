import Foundation
import Logging
import MoltbookAPI
import RateLimiting
import Recipes
import Storage

/// The driver of `AccountMachine`: performs its actions against the store, the client and the
/// report, in order, and answers its questions with events.
extension AccountPass {
    /// Performs `first` and everything the machine asks after it, until it asks nothing more.
    func drive(_ first: [AccountMachine.Action], into report: inout RunReport) async {
        var actions = first
        var index = 0
        while index < actions.count {
            let action = actions[index]
            index += 1
            guard let event = await perform(action, into: &report) else { continue }
            actions = decide { $0.handle(event, at: now) }
            index = 0
        }
    }

    /// Runs a decision of the machine (measured when a meter is set).
    func decide(_ body: (inout AccountMachine) -> [AccountMachine.Action]) -> [AccountMachine.Action] {
        guard let meter = runner.configuration.meter else { return body(&machine) }
        return meter.measure(.machine) { body(&machine) }
    }

    /// Performs one action; a question's answer is the event returned.
    func perform(_ action: AccountMachine.Action, into report: inout RunReport) async -> AccountMachine.Event? {
        switch action {
        case .line(let item):
            report.items.append(item)
        case .due(let date):
            report.due(at: date)
        case .dryQueue(let queue):
            report.dryQueues.append(queue)
        case .transientFailure:
            report.transientFailures += 1
        case .duplicateSkipped(let write, let earlier):
            logger.warning(
                "duplicate content not sent",
                metadata: ["agent": "\(agent)", "action": "\(write)", "earlier": "\(earlier)"])
        case .dropStale(let stale):
            return .dropped(ok: await drop(stale, into: &report))
        case .reload:
            guard let fresh = await readSnapshot() else { return .dropped(ok: false) }
            return .reloaded(snapshot(from: fresh))
        case .prepareClient:
            _ = await requireClient()
            return .clientPrepared(identity: identity, known: info.name != nil)
        case .fetch(let selector):
            do {
                return .fetched(.success(try await fetch(selector)))
            } catch {
                return .fetched(.failure(error))
            }
        case .fetchInbound(let query):
            return .inbound(await fetchInbound(query))
        case .inboundDisposition(let skipped, let wanted):
            inbox.skipped.formUnion(skipped)
            inbox.wanted.formUnion(wanted)
        case .inboundDeclined(let id):
            inbox.wanted.remove(id)
            inbox.skipped.insert(id)
        case .loadContentLedger:
            return .contentLedger(await contentSightings())
        case .generate(let request):
            guard let generator = runner.configuration.generator else {
                return .generated(.failed(reason: "no generator is available to this run"))
            }
            return .generated(await generator.generate(request))
        case .readThread(let postID, let replyTo):
            return .thread(await readThread(postID: postID, replyTo: replyTo))
        case .generationPending(let count):
            report.generationsPending += count
        case .generationFailed(let job, let reason):
            report.generationFailures += 1
            report.generation["\(agent): \(job)"] = .failed(reason)
        case .generationRefused(let job, let reason):
            report.generation["\(agent): \(job)"] = .failed(reason)
        case .generationSucceeded(let job):
            report.generation["\(agent): \(job)"] = .succeeded
        case .loadFacts:
            let agent = agent
            do {
                return .facts(try await store.read { try await Self.facts(of: agent, in: $0) })
            } catch {
                logger.error("could not read the state", metadata: ["agent": "\(agent)", "error": "\(error)"])
                return .facts(nil)
            }
        case .journal(let journal):
            let ok = await record(journal)
            reportLeaseLost(into: &report)
            if ok, let generator = runner.configuration.generator {
                await generator.journaled(keys: journal.commits.flatMap { $0.intents.map(\.key) })
            }
            // A lost lease is reported as the agent locked, not as a failure: the drain that
            // follows stops at its first attempt (`attempt` checks `access.leaseLost`).
            return .journaled(ok: ok || access.leaseLost)
        case .reportPending(let reason, let until):
            await reportPending(into: &report, reason: reason, until: until)
        case .readPending:
            let agent = agent
            let entries = (try? await store.read { try await $0.pendingJournalEntries(account: agent) }) ?? []
            for entry in entries {
                memo.journalContext[entry.key] = (recipes.displayName(entry.recipe, job: entry.job), entry.job)
            }
            return .pending(entries)
        case .settleChallenges:
            let state: AccountMachine.ChallengeState =
                switch await settleChallenges(into: &report) {
                case .clear: .clear
                case .waiting(let until, let reason): .waiting(until: until, reason: reason)
                case .paused(let until): .paused(until: until)
                }
            return .challenges(state, accountBroken: access.authBroken != nil || access.clientError != nil)
        case .markUnreadable(let entry):
            _ = try? await store.markFailed(key: entry.key, reason: "journal payload unreadable", retryAt: nil, at: now)
            report.items.append(item(entry, "?", .failed, "journal payload unreadable"))
        case .attempt(let entry, let write):
            let before = report.items.count
            let stop = await attempt(entry, write, into: &report)
            reportLeaseLost(into: &report)
            // Deferred on a path of its own (one line, deferred, with an end): the machine holds
            // the later writes of its class behind it.
            var deferredUntil: Date?
            if report.items.count == before + 1, let last = report.items.last, last.outcome == .deferred {
                deferredUntil = last.until
            }
            return .attempted(
                stop: stop || access.authBroken != nil || access.clientError != nil, deferredUntil: deferredUntil)
        case .saveLimiter:
            await saveLimiter()
        }
        return nil
    }

    /// Records the planned writes in one transaction: every job's intents, queue positions and
    /// cursor, and the `max_per_day` counts and queue ledger when they changed. Jobs journal
    /// together or not at all (a crash before the commit plans the same occurrences again, under
    /// the same keys), and a pass costs one store call for planning: in a cron run each
    /// transaction is a durable commit (an fsync).
    func record(_ journal: PlanningMachine.Journal) async -> Bool {
        let (agent, now) = (agent, now)
        let fence = fenceArguments
        do {
            try await store.transaction { transaction in
                // A runner that lost the agent's lease plans nothing for it.
                try await fence.check(in: transaction, agent: agent)
                for commit in journal.commits {
                    for intent in commit.intents { _ = try await transaction.recordIntent(intent, at: now) }
                    for (queue, position) in commit.positions {
                        try await transaction.setQueuePosition(position, recipe: commit.recipe, queue: queue)
                    }
                    if let cursor = commit.cursor {
                        try await transaction.setScheduleCursor(
                            recipe: commit.recipe, job: commit.job, lastFired: cursor, at: now)
                    }
                }
                if let deferred = journal.deferredSteps {
                    try await transaction.setLimiterState(
                        deferred, account: agent, key: DeferredSteps.stateKey, at: now)
                }
                if let behind = journal.clockBehind {
                    try await transaction.setLimiterState(behind, account: agent, key: ClockBehind.stateKey, at: now)
                }
                if let counts = journal.dailyCounts {
                    try await transaction.setLimiterState(counts, account: agent, key: DailyCounts.stateKey, at: now)
                }
                if let ledger = journal.queueLedger {
                    try await transaction.setLimiterState(ledger, account: agent, key: QueueLedger.stateKey, at: now)
                }
            }
            committed(fence)
            return true
        } catch {
            noteLeaseLost(error)
            logger.error("could not journal planned writes", metadata: ["agent": "\(agent)", "error": "\(error)"])
            return false
        }
    }
}
