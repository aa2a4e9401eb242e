import Foundation
import MoltbookAPI
import RateLimiting
import Recipes
import Storage

/// One account's pass as a state machine (issue 20): a value built from one snapshot of the
/// agent's state, whose `tick(now:)` and `handle(_:at:)` return the actions to perform. It reads
/// no clock, touches no store, holds no client and logs nothing; `AccountPass` is its driver,
/// the one place that awaits: it performs each action in order and, when an action asks a
/// question (the last one returned), hands the answer back as an event.
///
/// A pass, as the machine sees it:
/// 1. `tick`: waiting writes that expired or lost their job are withdrawn (`dropStale`);
/// 2. planning (`PlanningMachine`): every job's due occurrences expanded, checked and journaled
///    in one transaction (`journal`), asking for the client, selections and the duplicate
///    guard's ledger as it goes;
/// 3. unless the account is paused, the drain: open challenges settled, then each pending
///    entry decided by the `DrainMachine` (deferred, waiting, read back, sent) and handed to the
///    driver to `attempt` one at a time, the limiter saved after each.
struct AccountMachine {
    /// What the driver read from the store, in one read, to build the machine.
    struct Snapshot: Sendable {
        var limiter: Limiter
        /// The agent's unfinished journal entries, oldest first.
        var pending: [JournalEntry] = []
        /// The jobs' cursors, by `PlanningMachine.jobKey(recipe identity, job id)`.
        var cursors: [String: Date] = [:]
        /// The targets already acted on; nil until a due step needs them (`loadFacts`): a pass
        /// with nothing due reads none of them.
        var facts: DoneTargets?
        /// The stored `max_per_day` counts and queue ledger, decoded on first use (most passes
        /// never look at them, and the ledger grows with every item taken).
        var dailyCounts: Data?
        var queueLedger: Data?
        /// The steps whose reads were deferred (`DeferredSteps`), stored form.
        var deferredSteps: Data? = nil
        /// The jobs a pass found the clock behind (`ClockBehind`), stored form.
        var clockBehind: Data? = nil
        /// Index-based queue positions of older state (`PlanningMachine.legacyKey`).
        var legacyQueuePositions: [String: Int] = [:]
        var identity: AgentIdentity
        /// Whether the server's name for the agent is known (`GET /agents/me` read before).
        var identityKnown = false
        /// The pause in force, if any: reason and end (nil: until resumed).
        var paused: (reason: String, until: Date?)?
    }

    /// A write withdrawn before planning, and why.
    struct StaleWrite: Sendable, Equatable {
        var entry: JournalEntry
        var reason: String
    }

    /// Equatable, so that machine tests are tables of the actions expected (issue 32).
    enum Action: Equatable {
        // Report lines.
        case line(RunReport.Item)
        case due(Date)
        case dryQueue(String)
        case transientFailure
        /// A text not planned because it repeats an earlier one (logged).
        case duplicateSkipped(action: String, earlier: String)
        /// Jobs waiting for this many texts being generated (the daemon passes again when one is ready).
        case generationPending(Int)
        /// A generator failed for a job (`recipe/job`), and why (counted for health).
        case generationFailed(job: String, reason: String)
        /// Every text a job's generator wrote for a write was refused (counted for health, not
        /// as a failure of the run).
        case generationRefused(job: String, reason: String)
        /// A job's generator wrote a text the checks accepted (a failing streak ends).
        case generationSucceeded(job: String)
        // Questions: the answer comes back as an event.
        /// Withdraw these waiting writes (→ `.dropped`).
        case dropStale([StaleWrite])
        /// Read the planning part of the snapshot again (→ `.reloaded`), after writes were withdrawn.
        case reload
        /// Make the client; read the identity when unknown (→ `.clientPrepared`).
        case prepareClient
        /// Read the posts a selector names, through the client and the limiter (→ `.fetched`).
        case fetch(Selector)
        /// Read a `reply:` or `dm:` step's inbound items (→ `.inbound`); once per pass per kind.
        case fetchInbound(InboundQuery)
        /// Which inbound items a step passed over for good and which it wants answered: the
        /// driver marks a post's notifications read only when each of its items is settled.
        case inboundDisposition(skipped: Set<String>, wanted: Set<String>)
        /// A wanted item whose answer the generator declined or whose texts were all refused:
        /// passed over for good after all.
        case inboundDeclined(String)
        /// Read the duplicate guard's sightings (→ `.contentLedger`).
        case loadContentLedger
        /// Read the targets already acted on (→ `.facts`).
        case loadFacts
        /// Ask the generator for a write's text (→ `.generated`).
        case generate(GenerationRequest)
        /// Read the post a generated comment is about and the thread a reply answers (→ `.thread`).
        case readThread(postID: String, replyTo: String?)
        /// Record the planned writes in one transaction (→ `.journaled`).
        case journal(PlanningMachine.Journal)
        /// List the pending entries as deferred (the account is paused or waits for a challenge).
        case reportPending(reason: String, until: Date?)
        /// Read the pending entries for the drain (→ `.pending`).
        case readPending
        /// Answer the open challenges (→ `.challenges`).
        case settleChallenges
        /// Finish an entry whose payload cannot be read.
        case markUnreadable(JournalEntry)
        /// Read back, check with the server, admit and send one entry (→ `.attempted`).
        case attempt(JournalEntry, PlannedWrite)
        /// Store the limiter if it changed.
        case saveLimiter
    }

    enum Event {
        case dropped(ok: Bool)
        case reloaded(Snapshot)
        case clientPrepared(identity: AgentIdentity, known: Bool)
        case fetched(Result<[Post], any Error>)
        case inbound(Result<InboundRead, any Error>)
        case contentLedger(ContentSightings)
        /// The targets already acted on; nil when the store failed (nothing is planned then).
        case facts(DoneTargets?)
        case generated(GenerationAnswer)
        case thread(GenerationThread?)
        case journaled(ok: Bool)
        case pending([JournalEntry])
        /// The challenges' state, and whether the account can no longer send (key or client broken).
        case challenges(ChallengeState, accountBroken: Bool)
        /// An attempt ended: stop the account for this pass? Deferred on a path of its own until?
        case attempted(stop: Bool, deferredUntil: Date?)
    }

    /// Where open challenges leave the drain.
    enum ChallengeState: Equatable {
        case clear
        case waiting(until: Date?, reason: String)
        case paused(until: Date)
    }

    let agent: String
    let recipes: [Recipe]
    /// The agent's jobs, each with its recipe.
    let jobs: [JobRef]
    let configuration: Runner.Configuration
    private(set) var snapshot: Snapshot
    /// The drain's decisions and the account's limiter.
    var drain: DrainMachine
    private var planning: PlanningMachine?
    private var draining = Draining()

    /// The drain's place: the entries read and the one being attempted.
    private struct Draining {
        var entries: [JournalEntry] = []
        var index = 0
    }

    init(
        agent: String, recipes: [Recipe], jobs: [JobRef], configuration: Runner.Configuration, snapshot: Snapshot,
        now: Date
    ) {
        self.agent = agent
        self.recipes = recipes
        self.jobs = jobs
        self.configuration = configuration
        self.snapshot = snapshot
        drain = DrainMachine(limiter: snapshot.limiter, now: now)
    }

    var now: Date { drain.now }
    var limiter: Limiter {
        get { drain.limiter }
        _modify { yield &drain.limiter }
        set { drain.limiter = newValue }
    }

    // MARK: Tick

    /// The pass at `now`: stale writes first, then planning.
    mutating func tick(now: Date) -> [Action] {
        drain = DrainMachine(limiter: drain.limiter, now: now)
        if snapshot.pending.contains(where: PendingWrites.isDroppable) {
            let known = (configuration.knownRecipes ?? recipes).filter { $0.agent.value == agent }
            let stale = PendingWrites.stale(snapshot.pending, known: known, now: now)
            if !stale.isEmpty { return [.dropStale(stale)] }
        }
        return startPlanning()
    }

    mutating func handle(_ event: Event, at now: Date) -> [Action] {
        switch event {
        case .dropped(let ok):
            return ok ? [.reload] : startPlanning()
        case .reloaded(var fresh):
            // The pause is the pass's, decided before (a withdrawal does not lift it).
            fresh.paused = snapshot.paused
            fresh.limiter = drain.limiter
            snapshot = fresh
            return startPlanning()
        case .clientPrepared(let identity, let known):
            return plan(.clientPrepared(identity: identity, known: known))
        case .fetched(let result):
            return plan(.fetched(result))
        case .inbound(let result):
            return plan(.inbound(result))
        case .contentLedger(let seen):
            return plan(.contentLedger(seen))
        case .facts(let facts?):
            return plan(.facts(facts))
        case .generated(let answer):
            return plan(.generated(answer))
        case .thread(let thread):
            return plan(.thread(thread))
        case .facts(nil):
            // Planning without them could vote twice or comment twice: nothing is planned this pass.
            planning = nil
            return [.transientFailure] + startDrain()
        case .journaled(let ok):
            return (ok ? [] : [.transientFailure]) + startDrain()
        case .pending(let entries):
            draining = Draining(entries: entries)
            return [.settleChallenges]
        case .challenges(let state, let broken):
            switch state {
            case .clear:
                return broken ? [] : nextEntries()
            case .waiting(let until, let reason):
                return [.reportPending(reason: "verification challenge outstanding: \(reason)", until: until)]
                    + (until.map { [.due($0)] } ?? [])
            case .paused(let until):
                return [
                    .reportPending(
                        reason: "account paused after a failed challenge", until: until == .distantFuture ? nil : until)
                ]
            }
        case .attempted(let stop, let deferredUntil):
            let entry = draining.entries[draining.index]
            if entry.state == .intent || entry.state == .failed, let deferredUntil,
                let kind = PlannedWrite.Kind(rawValue: entry.action)
            {
                // Deferred on a path of its own (a server check waiting for the read budget):
                // the later writes of its class wait behind it too.
                drain.deferred(PlannedWrite(kind: kind).limitClass, until: deferredUntil)
            }
            draining.index += 1
            return [.saveLimiter] + (stop ? [] : nextEntries())
        }
    }

    // MARK: Planning

    private mutating func startPlanning() -> [Action] {
        let waitingJobs = Set(snapshot.pending.map { PlanningMachine.jobKey($0.recipe, $0.job) })
        let inputs = jobs.map { ref in
            PlanningMachine.JobInput(
                ref: ref, cursor: snapshot.cursors[ref.key],
                earlierStillWaiting: !waitingJobs.isEmpty
                    && ref.recipe.stateNames.contains {
                        waitingJobs.contains(PlanningMachine.jobKey($0, ref.job.id.value))
                    })
        }
        planning = PlanningMachine(
            agent: agent, now: now, jobs: inputs, environment: configuration.environment,
            maxGap: configuration.maxGap, snapshot: snapshot)
        return plan(nil)
    }

    private mutating func plan(_ answer: PlanningMachine.Answer?) -> [Action] {
        // In place (`planning!`), not a copy taken out and put back.
        guard planning != nil else { return [] }
        let actions = answer.map { planning!.resume($0) } ?? planning!.advance()
        // Planning ends with its journal, or with nothing when nothing was planned.
        if case .journal? = actions.last { return actions }
        if let last = actions.last, last.isQuestion { return actions }
        return actions + startDrain()
    }

    // MARK: Drain

    private func startDrain() -> [Action] {
        if let paused = snapshot.paused {
            return [.reportPending(reason: "account paused: \(paused.reason)", until: paused.until)]
        }
        return [.readPending]
    }

    /// Decides entries from the current one on until one must be attempted.
    private mutating func nextEntries() -> [Action] {
        var actions: [Action] = []
        while draining.index < draining.entries.count {
            let entry = draining.entries[draining.index]
            switch drain.step(for: entry) {
            case .behind(let until):
                actions.append(.line(line(entry, entry.action, .deferred, "behind an earlier deferred write", until)))
            case .unreadable:
                actions.append(.markUnreadable(entry))
            case .waiting(let waiting, let until, let reason):
                // An entry whose outcome is unknown waits for its next read-back or an operator:
                // uncertain, not merely deferred (the exit code says so on every run until settled).
                let outcome: RunReport.Item.Outcome = entry.state == .uncertain ? .uncertain : .deferred
                actions.append(.line(line(entry, waiting.summary, outcome, reason, until)))
                actions.append(.due(until))
            case .readBack(let write), .send(let write):
                actions.append(.attempt(entry, write))
                return actions
            }
            draining.index += 1
        }
        return actions
    }

    func line(
        _ entry: JournalEntry, _ action: String, _ outcome: RunReport.Item.Outcome, _ reason: String? = nil,
        _ until: Date? = nil
    ) -> RunReport.Item {
        RunReport.Item(
            agent: agent, recipe: recipes.displayName(entry.recipe, job: entry.job), job: entry.job, action: action,
            outcome: outcome, reason: reason, until: until, key: entry.key, step: entry.step)
    }
}

extension AccountMachine.Action {
    /// Whether the driver must answer this action with an event before the machine goes on.
    var isQuestion: Bool {
        switch self {
        case .dropStale, .reload, .prepareClient, .fetch, .loadContentLedger, .loadFacts, .journal, .readPending,
            .settleChallenges, .attempt, .generate, .readThread, .fetchInbound:
            true
        case .line, .due, .dryQueue, .transientFailure, .duplicateSkipped, .reportPending, .markUnreadable,
            .saveLimiter, .generationPending, .generationFailed, .generationRefused,
            .generationSucceeded, .inboundDisposition, .inboundDeclined:
            false
        }
    }
}

extension PlanningMachine {
    static func jobKey(_ recipe: String, _ job: String) -> String { recipe + "\u{1F}" + job }
}
