import Foundation
import MoltbookAPI
import Recipes
import Scheduling
import Storage

/// A read the limiter does not allow yet: the job is planned again on a later pass.
struct ReadDeferred: Error {
    var until: Date?
    var reason: String
}

extension AccountPass {
    /// Plans every job of the account and journals what is due.
    ///
    /// One read gives the pending entries and every job's cursor; one transaction records every
    /// job's intents, queue positions, `max_per_day` counts and cursors. Jobs journal together or
    /// not at all (a crash before the commit plans the same occurrences again, under the same
    /// keys), and a pass costs two store calls for planning, not two per job: in a cron run each
    /// transaction is a durable commit (an fsync).
    func plan(into report: inout RunReport) async {
        var facts = await loadFacts()
        let agent = agent
        let jobs = recipes.flatMap { recipe in recipe.jobs.map { (recipe, $0) } }
        // A job is known by its recipe's identity and its id (`JobIdentity.swift`).
        let (pending, cursors) =
            (try? await store.read { reader in
                (
                    try reader.pendingJournalEntries(account: agent),
                    try jobs.map { recipe, job in try reader.scheduleCursor(of: recipe, job: job.id.value) }
                )
            }) ?? ([], jobs.map { _ in nil })
        let waitingJobs = Set(pending.map { Self.jobKey($0.recipe, $0.job) })
        var commits: [JobCommit] = []
        for ((recipe, job), cursor) in zip(jobs, cursors) {
            let waiting = recipe.stateNames.contains { waitingJobs.contains(Self.jobKey($0, job.id.value)) }
            let commit = await plan(
                recipe: recipe, job: job, cursor: cursor, facts: &facts, earlierStillWaiting: waiting,
                into: &report)
            if let commit { commits.append(commit) }
        }
        guard !commits.isEmpty else { return }
        let counts = commits.contains { !$0.intents.isEmpty } ? dailyCounts?.stored : nil
        let ledger = queueLedgerChanged ? queueLedger?.stored : nil
        let (now, recorded) = (now, commits)
        do {
            try await store.transaction { transaction in
                for commit in recorded {
                    for intent in commit.intents { _ = try transaction.recordIntent(intent, at: now) }
                    for (queue, position) in commit.positions {
                        try transaction.setQueuePosition(position, recipe: commit.recipe, queue: queue)
                    }
                    try transaction.setScheduleCursor(
                        recipe: commit.recipe, job: commit.job, lastFired: commit.cursor, at: now)
                }
                if let counts {
                    try transaction.setLimiterState(counts, account: agent, key: DailyCounts.stateKey, at: now)
                }
                if let ledger {
                    try transaction.setLimiterState(ledger, account: agent, key: QueueLedger.stateKey, at: now)
                }
            }
        } catch {
            logger.error("could not journal planned writes", metadata: ["agent": "\(agent)", "error": "\(error)"])
            report.transientFailures += 1
            dailyCounts = nil  // read again from the store when next needed
            queueLedger = nil
        }
    }

    /// What planning one job records: its intents, queue positions and new cursor.
    struct JobCommit: Sendable {
        var recipe: String
        var job: String
        var intents: [JournalIntent]
        var positions: [String: QueuePosition]
        var cursor: Date
    }

    static func jobKey(_ recipe: String, _ job: String) -> String { recipe + "\u{1F}" + job }

    /// Plans one job's due occurrences.
    ///
    /// - `facts`: targets already acted on; the targets planned here are added, so that two
    ///   occurrences due in one pass (or two jobs) never pick the same post for a second vote or
    ///   comment (found by scripts/reliability/fault-storm: the second upvote toggled the first off).
    /// - Queue items are picked by content (`QueueLedger`): the first item of the queue not
    ///   taken by the agent, in this pass (two jobs may post from one queue) or before.
    /// - `earlierStillWaiting`: the job has writes from an earlier occurrence still waiting in the
    ///   journal (for the limiter, a retry, a pause). New occurrences are then skipped, with the
    ///   reason, rather than piling up behind them: a schedule faster than the limits would
    ///   otherwise grow the backlog without bound and send stale content days later. The cursor
    ///   still moves; queue items are not consumed by skipped occurrences.
    ///
    /// Returns what to record, or nil when the job is to be planned again next pass (a read the
    /// limiter deferred, a failed read).
    func plan(
        recipe: Recipe, job: Job, cursor: Date?, facts: inout DoneTargets,
        earlierStillWaiting: Bool, into report: inout RunReport
    ) async -> JobCommit? {
        let recipeID = recipe.identity
        let jobID = job.id.value
        let result = OccurrencePlanner.plan(
            trigger: job.trigger, seed: recipe.seed, cursor: cursor, lastTick: cursor, now: now,
            maxGap: runner.configuration.maxGap)
        for (occurrence, reason) in result.skipped {
            report.items.append(
                item(recipe, job, "occurrence \(MoltbookDateText.iso(occurrence.nominal))", .skipped, reason))
        }
        if let next = result.next?.fire { report.due(at: next) }

        var due = result.due
        if earlierStillWaiting, !due.isEmpty {
            for occurrence in due {
                report.items.append(
                    item(
                        recipe, job, "occurrence \(MoltbookDateText.iso(occurrence.nominal))", .skipped,
                        "an earlier occurrence's writes are still waiting (the schedule is faster than the limits)"))
            }
            due = []
        }
        var dailyCounts = due.isEmpty ? DailyCounts() : await loadDailyCounts()
        var intents: [JournalIntent] = []
        var planned: [String: QueuePosition] = [:]
        // Queue items this job takes (their fingerprints), added to the ledger when it commits.
        var taken: Set<String> = []
        // Content this job plans (fingerprint → journal key), for the duplicate guard.
        var plannedContent: [String: ContentSighting] = [:]
        // A selection that may work on a later pass failed; matters only if nothing was planned.
        var retryWanted = false
        for occurrence in due {
            let expander = StepExpander(
                recipe: recipe, job: job, occurrence: occurrence, environment: runner.configuration.environment)
            for index in job.steps.indices {
                let queue = Self.queue(of: job.steps[index])
                let queueKey = queue?.path.value
                var position = 0
                if let queue {
                    let ledger = await loadQueueLedger(recipe: recipe, queue: queue)
                    position = ledger.next(in: queue, alsoTaken: taken) ?? queue.items.count
                    // An item the agent already published (a state file that forgot it; the same
                    // text in another queue) is skipped by the duplicate guard and taken here, so
                    // the occurrence posts the next new item instead of nothing.
                    while position < queue.items.count {
                        let candidate = try? await expander.expand(
                            step: index, queuePosition: position, now: now, fetch: { _ in [] },
                            alreadyDone: { _, _ in false })
                        guard case .writes(let found)? = candidate, let first = found.first else { break }
                        let kept = await withoutDuplicates(
                            [first], recipe: recipe, job: job, queue: queue, taken: &taken, planned: &plannedContent,
                            into: &report)
                        if !kept.isEmpty { break }
                        position = ledger.next(in: queue, alsoTaken: taken) ?? queue.items.count
                    }
                }
                let outcome: StepExpander.Outcome
                let known = facts
                // A selection needs the client anyway; made first, it tells who the agent is on
                // the server before `not_mine` is asked.
                if serverName == nil, Self.selects(job.steps[index]) { _ = await requireClient() }
                do {
                    outcome = try await expander.expand(
                        step: index, queuePosition: position, now: now, identity: identity,
                        fetch: { try await self.fetch($0) }, alreadyDone: { known.contains($0, $1) })
                } catch {
                    // A selection read that did not work. The job's other steps are unrelated: they
                    // are planned as usual. Only when nothing else was planned for the job is the
                    // occurrence tried again next pass (a read the limiter deferred, a 5xx); a
                    // definite refusal (404 for a route this server does not have, 400) skips the
                    // step for this occurrence, or every pass would spend a read on it.
                    let (failure, retry) = selectionFailure(error)
                    report.items.append(failure(recipe, job))
                    if retry, !(error is ReadDeferred) { report.transientFailures += 1 }
                    retryWanted = retryWanted || retry
                    continue
                }
                switch outcome {
                case .queueEmpty(let path):
                    report.items.append(
                        item(recipe, job, "post from queue", .skipped, "content queue \(path) is empty"))
                    report.dryQueues.append("\(recipe.name)/\(job.id.value): \(path)")
                case .writes(let found) where found.isEmpty && Self.selects(job.steps[index]):
                    report.items.append(
                        item(
                            recipe, job, job.steps[index].action.keyword, .skipped,
                            "the selector found no post to act on"))
                case .writes(var writes):
                    writes = await withoutDuplicates(
                        writes, recipe: recipe, job: job, queue: queue, taken: &taken, planned: &plannedContent,
                        into: &report)
                    if let cap = Self.maxPerDay(job.steps[index]) {
                        let counter = DailyCounts.key(recipeID, jobID, index)
                        let day = DailyCounts.day(of: occurrence.nominal, in: recipe.timeZone)
                        let allowed = max(0, cap - dailyCounts.used(counter, day: day))
                        if writes.count > allowed {
                            report.items.append(
                                item(
                                    recipe, job, job.steps[index].action.keyword, .skipped,
                                    "max_per_day \(cap) reached for \(day) (\(writes.count - allowed) not planned)"))
                            writes = Array(writes.prefix(allowed))
                        }
                        dailyCounts.add(counter, day: day, writes.count)
                    }
                    for expanded in writes {
                        if let target = expanded.write.target { facts.add(expanded.write.kind, [target]) }
                        var write = expanded.write
                        write.queueItem = expanded.queueIndex.flatMap { index in
                            queue.map { QueueLedger.fingerprint($0.items[index]) }
                        }
                        intents.append(
                            JournalIntent(
                                key: expanded.key, account: agent, recipe: recipeID, job: jobID,
                                occurrence: occurrence.nominal, step: expanded.step,
                                action: expanded.write.kind.rawValue,
                                target: expanded.write.target, contentHash: expanded.contentHash,
                                payload: write.payload, notBefore: occurrence.fire))
                        if let queueIndex = expanded.queueIndex, let queue, let queueKey {
                            taken.insert(QueueLedger.fingerprint(queue.items[queueIndex]))
                            let position = QueuePosition(
                                next: queueIndex + 1, lastItem: expanded.write.title, updatedAt: now)
                            planned[queueKey] = position
                        }
                    }
                }
            }
        }
        if retryWanted, intents.isEmpty { return nil }  // the cursor stays: planned again next pass
        // The counts this job planned count for the next job of the pass at once; they are
        // stored with the intents (`plan(into:)`).
        if !intents.isEmpty { self.dailyCounts = dailyCounts }
        // Only now, with the job's commit certain to be made: a job given up half-way (a deferred
        // read) must not leave a later job of the pass past items nobody journaled.
        if !taken.isEmpty {
            queueLedger?.take(taken)
            queueLedgerChanged = true
        }
        contentSeen?.merge(plannedContent) { earlier, _ in earlier }
        return JobCommit(recipe: recipeID, job: jobID, intents: intents, positions: planned, cursor: result.cursor)
    }
}
