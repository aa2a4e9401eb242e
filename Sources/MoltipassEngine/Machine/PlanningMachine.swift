import Foundation
import MoltbookAPI
import Recipes
import Storage

/// The planning half of an account's pass, apart from its effects (issue 20): which occurrences
/// of each job are due, what their steps expand to, which of those the duplicate guard, the
/// dedup facts and `max_per_day` let through, and what one transaction records.
///
/// It is resumable: `advance()` runs until it needs something only the driver can get (the
/// client and the agent's identity, a selection's posts, the duplicate guard's ledger) and
/// returns that request as the last action; the driver answers with `resume(_:)`. Between the
/// two nothing moves, so the requests leave in the order the loop asks for them, exactly as a
/// loop that awaited each one would send them. No store, client, clock or logger inside: the
/// snapshot it starts from and the answers it gets are its whole world.
struct PlanningMachine {
    typealias Action = AccountMachine.Action

    /// One job to plan, with what the snapshot knows of it.
    struct JobInput: Sendable {
        var ref: JobRef
        var cursor: Date?
        /// The job has writes of an earlier occurrence still waiting in the journal.
        var earlierStillWaiting: Bool
    }

    let agent: String
    let now: Date
    let environment: [String: String]
    let maxGap: TimeInterval
    /// The longest duplicate window of the agent's recipes (the ledger is read that far back).
    let jobs: [JobInput]
    var known: Known
    var counts: Counts
    /// Index-based queue positions of older state, by `recipe name|queue path` (migrated on first use).
    let legacyQueuePositions: [String: Int]
    private var progress = Progress()

    /// Where the loop stands: the job, its occurrence and step, and the step's stage.
    private struct Progress {
        /// The deferred steps looked at so far (they come before the jobs).
        var retriesStarted = false
        var retries: [DeferredStep] = []
        var jobIndex = 0
        var work: JobWork?
        var commits: [JobCommit] = []
        var finished = false
    }

    init(
        agent: String, now: Date, jobs: [JobInput], environment: [String: String], maxGap: TimeInterval,
        snapshot: AccountMachine.Snapshot
    ) {
        self.agent = agent
        self.now = now
        self.jobs = jobs
        self.environment = environment
        self.maxGap = maxGap
        known = Known(identity: snapshot.identity, identityKnown: snapshot.identityKnown, facts: snapshot.facts)
        counts = Counts(
            storedDaily: snapshot.dailyCounts, storedLedger: snapshot.queueLedger,
            storedDeferred: snapshot.deferredSteps, storedBehind: snapshot.clockBehind)
        legacyQueuePositions = snapshot.legacyQueuePositions
    }

    /// What the driver answers.
    enum Answer {
        /// The client was made (or could not be) and the identity read when unknown.
        case clientPrepared(identity: AgentIdentity, known: Bool)
        /// A selection's posts, or why they could not be read.
        case fetched(Result<[Post], any Error>)
        /// The duplicate guard's sightings.
        case contentLedger(ContentSightings)
        /// The targets already acted on.
        case facts(DoneTargets)
        /// A generator's answer for the write asked about.
        case generated(GenerationAnswer)
        /// The post and thread a generated comment answers (nil: not readable now).
        case thread(GenerationThread?)
        /// A `reply:` or `dm:` step's inbound items, or why they could not be read.
        case inbound(Result<InboundRead, any Error>)
    }

    /// Runs the loop until it needs an answer (the last action returned) or has planned every
    /// job (the last action is `.journal`, or nothing when nothing was planned).
    mutating func advance() -> [Action] {
        var actions: [Action] = []
        if !progress.retriesStarted {
            progress.retriesStarted = true
            progress.retries = dueRetries(into: &actions)
        }
        while !progress.finished {
            if progress.work == nil, !progress.retries.isEmpty {
                progress.work = retryWork(progress.retries.removeFirst())
            }
            if progress.work == nil {
                guard progress.jobIndex < jobs.count else {
                    progress.finished = true
                    if let journal = finish() { actions.append(.journal(journal)) }
                    break
                }
                progress.work = startJob(jobs[progress.jobIndex], into: &actions)
            }
            guard var work = progress.work else { continue }
            if work.isDone {
                if let commit = finishJob(&work) { progress.commits.append(commit) }
                progress.work = nil
                if work.only == nil { progress.jobIndex += 1 }
                continue
            }
            let request = step(&work, into: &actions)
            progress.work = work
            if let request {
                actions.append(request)
                return actions
            }
        }
        return actions
    }

    /// Takes the driver's answer to the last request and runs on.
    mutating func resume(_ answer: Answer) -> [Action] {
        guard var work = progress.work else { return advance() }
        switch answer {
        case .clientPrepared(let identity, let isKnown):
            self.known.identity = identity
            self.known.identityKnown = isKnown
            work.at.clientAsked = true
        case .fetched(let result):
            work.at.selection = result
        case .contentLedger(let seen):
            known.contentSeen = seen
        case .facts(let facts):
            known.facts = facts
        case .generated(let answer):
            work.at.generation?.answer = answer
        case .thread(let thread):
            work.at.generation?.thread = .some(thread)
        case .inbound(let result):
            work.at.inbound = result
        }
        progress.work = work
        return advance()
    }

    // MARK: Jobs

    private mutating func startJob(_ input: JobInput, into actions: inout [Action]) -> JobWork {
        let (recipe, job) = (input.ref.recipe, input.ref.job)
        var result = OccurrencePlanner.plan(
            trigger: job.trigger, seed: recipe.seed, cursor: input.cursor, lastTick: input.cursor, now: now,
            maxGap: maxGap)
        let key = Self.jobKey(recipe.identity, job.id.value)
        if result.behind != nil {
            if !counts.clockBehind.jobs.contains(key) { counts.clockBehind.jobs.insert(key) }
        } else if counts.clockBehind.jobs.contains(key) {
            // Passes ran while the clock was behind this job's cursor (issue 34: a VM restored from
            // yesterday's snapshot ran for an hour and a half before NTP put it right): the runner
            // was alive all along, so the occurrence that is current now is on time, not "missed"
            // after a gap. The ones that fell while the clock was wrong are not replayed.
            result = ClockBehind.plan(
                trigger: job.trigger, seed: recipe.seed, cursor: input.cursor, now: now, maxGap: maxGap)
            counts.clockBehind.jobs.remove(key)
        }
        if let behind = result.behind {
            actions.append(
                .line(
                    line(
                        recipe, job, "schedule", .skipped,
                        """
                        the clock is \(DurationText.format(Int(behind.rounded(.up)))) behind the instant this job was last planned at \
                        (\(MoltbookDateText.iso(result.cursor))): the clock stepped back; nothing is planned again \
                        before the clock passes it
                        """)))
        }
        for (what, reason) in Self.skippedLines(result.skipped) {
            actions.append(.line(line(recipe, job, what, .skipped, reason)))
        }
        if let next = result.next?.fire { actions.append(.due(next)) }
        var due = result.due
        if input.earlierStillWaiting, !due.isEmpty {
            for occurrence in due {
                actions.append(
                    .line(
                        line(
                            recipe, job, "occurrence \(MoltbookDateText.iso(occurrence.nominal))", .skipped,
                            "an earlier occurrence's writes are still waiting (the schedule is faster than the limits)"
                        )))
            }
            due = []
        }
        return JobWork(
            ref: input.ref, result: result, due: due, dailyCounts: due.isEmpty ? DailyCounts() : counts.daily)
    }

    /// The report lines for occurrences the planner dropped. A run of more than
    /// `skippedLinesLimit` consecutive ones with the same reason is one line naming the first, the
    /// last and how many: after 91 days down, a half-hourly job reported 4,368 lines, which told an
    /// operator nothing more than one, and on a loaded machine took its run past a minute.
    static let skippedLinesLimit = 3

    static func skippedLines(_ skipped: [(OccurrencePlanner.Occurrence, String)]) -> [(String, String)] {
        var lines: [(String, String)] = []
        var start = skipped.startIndex
        while start < skipped.endIndex {
            let reason = skipped[start].1
            var end = start + 1
            while end < skipped.endIndex, skipped[end].1 == reason { end += 1 }
            let group = skipped[start..<end]
            if group.count > skippedLinesLimit, let first = group.first?.0, let last = group.last?.0 {
                let what =
                    "occurrences \(MoltbookDateText.iso(first.nominal)) … \(MoltbookDateText.iso(last.nominal)) "
                    + "(\(group.count))"
                lines.append((what, reason))
            } else {
                lines += group.map { ("occurrence \(MoltbookDateText.iso($0.0.nominal))", $0.1) }
            }
            start = end
        }
        return lines
    }

    /// The job's commit, or nil when it is to be planned again next pass (a read the limiter
    /// deferred, a failed read, with nothing planned).
    private mutating func finishJob(_ work: inout JobWork) -> JobCommit? {
        if work.planned.withheld { return nil }
        // A step whose read was deferred is kept in the state and planned again on its own
        // (`DeferredSteps`): the job's cursor moves on with what was planned.
        if let only = work.only, !work.planned.deferred.contains(where: { $0.identity == only.identity }) {
            counts.deferredSteps.remove(only.identity)
        }
        for step in work.planned.deferred { counts.deferredSteps.keep(step) }
        // The counts this job planned count for the next job of the pass at once; they are
        // stored with the intents.
        if !work.planned.intents.isEmpty { counts.daily = work.planned.dailyCounts }
        // Only now, with the job's commit certain to be made: a job given up half-way (a deferred
        // read) must not leave a later job of the pass past items nobody journaled.
        if !work.planned.taken.isEmpty {
            counts.queueLedger.take(work.planned.taken)
            counts.queueLedgerChanged = true
        }
        for (exact, sighting) in work.planned.content { known.contentSeen?.note(sighting, as: exact) }
        return JobCommit(
            recipe: work.recipe.identity, job: work.job.id.value, intents: work.planned.intents,
            positions: work.planned.positions,
            cursor: work.only == nil ? work.result.cursor : nil)
    }

    private mutating func finish() -> Journal? {
        let commits = progress.commits
        guard !commits.isEmpty || counts.deferredChanged || counts.behindChanged else { return nil }
        return Journal(
            commits: commits, dailyCounts: commits.contains { !$0.intents.isEmpty } ? counts.daily.stored : nil,
            queueLedger: counts.queueLedgerChanged ? counts.queueLedger.stored : nil,
            deferredSteps: counts.deferredChanged ? counts.deferredSteps.stored : nil,
            clockBehind: counts.behindChanged ? counts.clockBehind.stored : nil)
    }

    // MARK: Deferred steps

    /// The deferred steps to plan again now; those not yet allowed say so (a deferred line each,
    /// and the pass is due again then), those whose job is gone or whose time is over leave with
    /// a line that says why.
    private mutating func dueRetries(into actions: inout [Action]) -> [DeferredStep] {
        var due: [DeferredStep] = []
        for step in counts.deferredSteps.items {
            let ref = jobs.first { $0.ref.recipe.identity == step.recipe && $0.ref.job.id.value == step.job }?.ref
            let what = "\(step.what) (occurrence \(MoltbookDateText.iso(step.nominal)))"
            guard let ref, step.step < ref.job.steps.count else {
                // A recipe not given to this run is not this run's to judge: left as it is.
                if jobs.allSatisfy({ $0.ref.recipe.identity != step.recipe }) { continue }
                counts.deferredSteps.remove(step.identity)
                actions.append(.line(orphanLine(step, what)))
                continue
            }
            if now >= step.expiresAt {
                counts.deferredSteps.remove(step.identity)
                actions.append(
                    .line(
                        line(
                            ref.recipe, ref.job, what, .skipped,
                            "expired \(MoltbookDateText.iso(step.expiresAt)) unread (it waited: \(step.reason))")))
                continue
            }
            if let retryAt = step.retryAt, retryAt > now {
                actions.append(.line(line(ref.recipe, ref.job, what, .deferred, step.reason, retryAt)))
                actions.append(.due(retryAt))
                continue
            }
            due.append(step)
        }
        return due
    }

    /// The line of a deferred step whose job no recipe of the agent has any more.
    private func orphanLine(_ step: DeferredStep, _ what: String) -> RunReport.Item {
        RunReport.Item(
            agent: agent, recipe: step.recipe, job: step.job, action: what, outcome: .skipped,
            reason: "orphaned: job \(step.recipe)/\(step.job) is in none of the recipes given; not read")
    }

    /// The work of planning `step` again: its occurrence, from that step, and no further.
    private mutating func retryWork(_ step: DeferredStep) -> JobWork? {
        guard
            let ref = jobs.first(where: { $0.ref.recipe.identity == step.recipe && $0.ref.job.id.value == step.job })?
                .ref
        else { return nil }
        let result = OccurrencePlanner.Result(due: [step.occurrence], skipped: [], cursor: step.fire)
        var work = JobWork(ref: ref, result: result, due: [step.occurrence], dailyCounts: counts.daily)
        work.at.step = step.step
        work.only = step
        return work
    }

    /// Keeps the step `work` is at, whose read was deferred (`failure`), to be planned again.
    func deferStep(_ work: inout JobWork, what: String, _ failure: SelectionFailure) {
        let occurrence = work.due[work.at.occurrence]
        work.planned.deferred.append(
            DeferredStep(
                recipe: work.recipe.identity, job: work.job.id.value, nominal: occurrence.nominal,
                fire: occurrence.fire, step: work.at.step, what: what, reason: failure.reason,
                retryAt: failure.until, since: now,
                expiresAt: PendingWrites.expiry(of: occurrence.nominal, job: work.job, seed: work.recipe.seed)))
    }

    // MARK: Steps

    /// Works on the current step; returns a request when it needs an answer first.
    private mutating func step(_ work: inout JobWork, into actions: inout [Action]) -> Action? {
        let occurrence = work.due[work.at.occurrence]
        let step = work.job.steps[work.at.step]
        let expander = StepExpander(
            recipe: work.recipe, job: work.job, occurrence: occurrence, environment: environment)
        let queue = Self.queue(of: step)
        switch work.at.stage {
        case .start:
            // The dedup facts are read when a step is first due, not on every pass.
            if known.facts == nil { return .loadFacts }
            var position = 0
            if let queue {
                migrateQueue(recipe: work.recipe, queue: queue)
                position = counts.queueLedger.next(in: queue, alsoTaken: work.planned.taken) ?? queue.items.count
            }
            work.at.stage = .scanning(position: position)
            return self.step(&work, into: &actions)
        case .scanning(var position):
            // An item the agent already published (a state file that forgot it; the same text in
            // another queue) is skipped by the duplicate guard and taken here, so the occurrence
            // posts the next new item instead of nothing.
            if let queue {
                while position < queue.items.count {
                    guard
                        case .writes(let found) = expander.expand(
                            step: work.at.step, queuePosition: position, now: now, alreadyDone: { _, _ in false }),
                        let first = found.first
                    else { break }
                    if known.contentSeen == nil {
                        work.at.stage = .scanning(position: position)
                        return .loadContentLedger
                    }
                    let kept = withoutDuplicates([first], in: &work, queue: queue, into: &actions)
                    if !kept.isEmpty { break }
                    position = counts.queueLedger.next(in: queue, alsoTaken: work.planned.taken) ?? queue.items.count
                }
            }
            work.at.stage = .selecting(position: position)
            return self.step(&work, into: &actions)
        case .selecting(let position):
            if let query = Self.inbound(of: step) {
                return selectInbound(query, position: position, in: &work, into: &actions)
            }
            guard Self.selects(step), let selector = Self.selector(of: step) else {
                work.at.stage = .expanding(position: position, selection: [])
                return self.step(&work, into: &actions)
            }
            // A selection needs the client anyway; made first, it tells who the agent is on the
            // server before `not_mine` is asked.
            if !known.identityKnown, !work.at.clientAsked {
                return .prepareClient
            }
            guard let result = work.at.selection else { return .fetch(selector) }
            work.at.selection = nil
            work.at.clientAsked = false
            switch result {
            case .success(let posts):
                work.at.stage = .expanding(position: position, selection: posts)
                return self.step(&work, into: &actions)
            case .failure(let error):
                // A selection read that did not work. The job's other steps are unrelated: they
                // are planned as usual. Only when nothing else was planned for the job is the
                // occurrence tried again next pass (a read the limiter deferred, a 5xx); a
                // definite refusal (404 for a route this server does not have, 400) skips the
                // step for this occurrence, or every pass would spend a read on it.
                let failure = Self.selectionFailure(error)
                actions.append(
                    .line(
                        line(
                            work.recipe, work.job, "select targets", failure.outcome, failure.reason,
                            failure.until)))
                if failure.retry, !(error is ReadDeferred) { actions.append(.transientFailure) }
                if failure.retry { deferStep(&work, what: "select targets", failure) }
                work.nextStep()
                return nil
            }
        case .expanding(let position, let selection):
            let facts = known.facts ?? DoneTargets()
            var outcome = expander.expand(
                step: work.at.step, queuePosition: position, now: now, identity: known.identity, selection: selection,
                inbound: work.at.inboundRead, alreadyDone: { facts.contains($0, $1) })
            if known.contentSeen == nil, outcome.found.contains(where: \.write.kind.carriesText) {
                // Expanded again once the ledger is read: the inbound items are kept for it.
                return .loadContentLedger
            }
            work.at.inboundRead = nil
            if case .answers(let writes, let skipped) = outcome {
                report(skipped, answering: writes, in: work, into: &actions)
                outcome = .writes(writes)
            }
            if startGeneration(outcome, occurrence: occurrence, in: &work, into: &actions) {
                return self.step(&work, into: &actions)
            }
            record(outcome, occurrence: occurrence, queue: queue, in: &work, into: &actions)
            work.nextStep()
            return nil
        case .generating:
            return generate(&work, into: &actions)
        }
    }
}
