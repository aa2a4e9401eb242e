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

    /// Whether the step picks its targets with a selector (so finding none is worth a line).
    static func selects(_ step: Step) -> Bool {
        switch step.action {
        case .comment(let action): if case .selected = action.target { return true }
        case .vote(let action): if case .selected = action.target { return true }
        case .post, .follow, .unfollow, .subscribe, .unsubscribe: break
        }
        return false
    }

    /// The report line for a selection read that failed, and whether trying the occurrence
    /// again next pass can help (a deferred read, a transient failure) or not (a refusal).
    func selectionFailure(_ error: any Error) -> (
        (Recipe, Job) -> RunReport.Item, retry: Bool
    ) {
        if let deferred = error as? ReadDeferred {
            return ({ self.item($0, $1, "select targets", .deferred, deferred.reason, deferred.until) }, true)
        }
        if let error = error as? APIError,
            [.notFound, .methodNotAllowed, .badRequest, .forbidden, .invalidRequest].contains(error.code)
        {
            let reason = "selection refused by the server: \(error.message); skipped for this occurrence"
            return ({ self.item($0, $1, "select targets", .failed, reason) }, false)
        }
        return ({ self.item($0, $1, "select targets", .deferred, "selection failed: \(error); tried again") }, true)
    }

    /// The step's `max_per_day`, if any.
    static func maxPerDay(_ step: Step) -> Int? {
        switch step.action {
        case .post(let action): action.maxPerDay
        case .comment(let action): action.maxPerDay
        case .vote(let action): action.maxPerDay
        case .follow, .unfollow, .subscribe, .unsubscribe: nil
        }
    }

    /// The `max_per_day` counts: read once per pass, then the copy this pass keeps current.
    func loadDailyCounts() async -> DailyCounts {
        if let dailyCounts { return dailyCounts }
        let agent = agent
        let data = try? await store.read { try $0.limiterState(account: agent, key: DailyCounts.stateKey) }
        let loaded = data.flatMap { $0 }.flatMap(DailyCounts.init(stored:)) ?? DailyCounts()
        dailyCounts = loaded
        return loaded
    }

    /// The step's content queue, if it posts from one.
    static func queue(of step: Step) -> ContentQueue? {
        if case .post(let action) = step.action, case .queue(let queue) = action.body { return queue }
        return nil
    }

    /// The queue ledger: read once per pass, then the copy this pass keeps current. The first
    /// time `queue` of `recipe` is planned, an index-based position of older state is carried
    /// over into it (the migration is stored with the next commit that takes an item).
    func loadQueueLedger(recipe: Recipe, queue: ContentQueue) async -> QueueLedger {
        // Index positions were stored under the recipe's name as it was then (the file's name
        // when no `name:` was written).
        let (agent, recipe) = (agent, recipe.name)
        var ledger: QueueLedger
        if let queueLedger {
            ledger = queueLedger
        } else {
            let data = try? await store.read { try $0.limiterState(account: agent, key: QueueLedger.stateKey) }
            ledger = data.flatMap { $0 }.flatMap(QueueLedger.init(stored:)) ?? QueueLedger()
        }
        if !ledger.hasMigrated(recipe: recipe, queue: queue.path.value) {
            let old = try? await store.read { try $0.queuePosition(recipe: recipe, queue: queue.path.value) }
            ledger.migrate(recipe: recipe, queue: queue, next: old.flatMap { $0 }?.next ?? 0)
        }
        queueLedger = ledger
        return ledger
    }

    /// Reads the posts a selector names, through the limiter.
    func fetch(_ selector: Selector) async throws -> [Post] {
        guard let client = await requireClient() else {
            throw ReadDeferred(until: nil, reason: authBroken ?? clientError ?? "no client")
        }
        switch limiter.reserve([.read], at: now) {
        case .allowed: break
        case .deferred(let until, let because): throw ReadDeferred(until: until, reason: "\(because)")
        case .never(let because): throw ReadDeferred(until: nil, reason: "\(because)")
        }
        let sort = PostSort(rawValue: (selector.sort ?? .new).rawValue) ?? .new
        let limit = min(max(selector.limit, 1), 100)
        let response: MoltbookResponse<Page<Post>>
        do throws(APIError) {
            switch selector.source {
            case .global: response = try await client.posts(sort: sort, limit: limit)
            case .personal: response = try await client.feed(sort: sort, limit: limit)
            case .submolt(let name):
                do throws(APIError) {
                    response = try await client.submoltFeed(name, sort: sort, limit: limit)
                } catch {
                    // Servers without `/submolts/NAME/feed` (a community mock) filter the global
                    // feed instead. A 404 that names the submolt ("Submolt not found") is about
                    // the submolt, not the route: that one stands.
                    let aboutSubmolt = (error.serverError ?? "").lowercased().contains("submolt")
                    guard error.code == .notFound || error.code == .methodNotAllowed, !aboutSubmolt else { throw error }
                    absorb(error.rateLimit, status: error.status ?? 0, action: nil, request: .read)
                    guard case .allowed = limiter.reserve([.read], at: now) else { throw error }
                    response = try await client.posts(sort: sort, limit: limit, submolt: name)
                }
            case .search(let query):
                let found = try await client.search(query, type: .posts, limit: min(limit, 50))
                response = found.map { page in
                    Page(items: page.items.compactMap(\.post), hasMore: page.hasMore, nextCursor: page.nextCursor)
                }
            }
        } catch {
            absorb(error.rateLimit, status: error.status ?? 0, action: nil, request: .read)
            if error.code == .rateLimited {
                throw ReadDeferred(until: limiter.earliest([.read], at: now).date, reason: "429 on a read")
            }
            throw error
        }
        absorb(response.rateLimit, status: response.status, action: nil, request: .read)
        return response.value.items
    }

    /// The targets already acted on, per kind: the store's dedup facts, and the journal's
    /// entries for the writes that must never be planned twice.
    ///
    /// A vote or comment already journaled for a target — pending, in flight, uncertain, or
    /// done with its fact lost to a crash — counts as done: planning it again for the next
    /// occurrence would send a second vote (toggling the first off) or a second comment. Found
    /// by the SIGKILL test (votes_removed > 0).
    ///
    /// The sets are kept as the store returns them, never merged: after a month an account has
    /// thousands of targets, and a pass only asks about the few posts a selector fetched.
    func loadFacts() async -> DoneTargets {
        let agent = agent
        let facts = try? await store.read { reader -> DoneTargets in
            var result = DoneTargets()
            for kind in PlannedWrite.Kind.allCases {
                guard let (dedupKind, value) = Self.fact(for: kind) else { continue }
                result.add(kind, try reader.dedupTargets(account: agent, kind: dedupKind, value: value))
            }
            let journaled = try reader.journalTargets(
                account: agent, actions: Set(DoneTargets.journaledOnce.map(\.rawValue)))
            for (action, targets) in journaled {
                guard let kind = PlannedWrite.Kind(rawValue: action) else { continue }
                result.add(kind, targets)
            }
            return result
        }
        return facts ?? DoneTargets()
    }

    /// The dedup fact a done write leaves: kind and value (nil value: any).
    static func fact(for kind: PlannedWrite.Kind) -> (DedupKind, String?)? {
        switch kind {
        case .post: nil
        case .comment: (.comment, nil)
        case .upvotePost: (.postVote, "up")
        case .downvotePost: (.postVote, "down")
        case .upvoteComment: (.commentVote, "up")
        case .follow: (.follow, "yes")
        case .unfollow: (.follow, "no")
        case .subscribe: (.subscribe, "yes")
        case .unsubscribe: (.subscribe, "no")
        }
    }

    func item(
        _ recipe: Recipe, _ job: Job, _ action: String, _ outcome: RunReport.Item.Outcome, _ reason: String? = nil,
        _ until: Date? = nil
    ) -> RunReport.Item {
        RunReport.Item(
            agent: agent, recipe: recipe.name, job: job.id.value, action: action, outcome: outcome, reason: reason,
            until: until)
    }
}

/// The targets an account already acted on, per kind, as the sets the store handed out.
struct DoneTargets: Sendable {
    /// The kinds whose journal entries count as done in any state.
    static let journaledOnce: [PlannedWrite.Kind] = [.comment, .upvotePost, .downvotePost, .upvoteComment]

    private var sets: [PlannedWrite.Kind: [Set<String>]] = [:]

    mutating func add(_ kind: PlannedWrite.Kind, _ targets: Set<String>) {
        if !targets.isEmpty { sets[kind, default: []].append(targets) }
    }

    /// Whether `target` was acted on with `kind`.
    func contains(_ kind: PlannedWrite.Kind, _ target: String) -> Bool {
        sets[kind]?.contains { $0.contains(target) } ?? false
    }
}

/// Writes planned per step and calendar day (the recipe's zone), for `max_per_day`. Stored with
/// the limiter's state and written in the transaction that records the intents.
struct DailyCounts: Codable, Sendable {
    static let stateKey = "max-per-day"

    struct Count: Codable, Sendable {
        var day: String
        var count: Int
    }

    var counts: [String: Count] = [:]

    init() {}

    /// Reads the stored JSON (`Codable`'s shape) through `JSONValue`: `JSONDecoder` was most of
    /// the cost of a pass that plans something.
    init?(stored: Data) {
        guard let value = try? JSONValue.parse(stored), let counts = value["counts"]?.object else { return nil }
        for (key, entry) in counts {
            guard let day = entry["day"]?.string, let count = entry["count"]?.int else { return nil }
            self.counts[key] = Count(day: day, count: count)
        }
    }

    /// The stored JSON, in `Codable`'s shape.
    var stored: Data {
        JSONValue.object([
            "counts": .object(
                counts.mapValues { .object(["day": .string($0.day), "count": .number(Double($0.count))]) })
        ]).encoded()
    }

    static func key(_ recipe: String, _ job: String, _ step: Int) -> String { "\(recipe)|\(job)|\(step)" }

    /// `yyyy-MM-dd` of `date` in `zone`.
    static func day(of date: Date, in zone: TimeZone) -> String {
        let local = date.timeIntervalSince1970 + Double(zone.secondsFromGMT(for: date))
        let midnight = (local / 86_400).rounded(.down) * 86_400
        return String(MoltbookDate.format(Date(timeIntervalSince1970: midnight)).prefix(10))
    }

    func used(_ key: String, day: String) -> Int {
        counts[key].map { $0.day == day ? $0.count : 0 } ?? 0
    }

    mutating func add(_ key: String, day: String, _ count: Int) {
        counts[key] = Count(day: day, count: used(key, day: day) + count)
    }
}
