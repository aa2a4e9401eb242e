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
    func plan(into report: inout RunReport) async {
        let facts = await loadFacts()
        for recipe in recipes {
            for job in recipe.jobs {
                await plan(recipe: recipe, job: job, facts: facts, into: &report)
            }
        }
    }

    func plan(recipe: Recipe, job: Job, facts: DoneTargets, into report: inout RunReport) async {
        let recipeID = recipe.name
        let jobID = job.id.value
        let cursor = try? await store.read { try $0.scheduleCursor(recipe: recipeID, job: jobID) }
        let result = OccurrencePlanner.plan(
            trigger: job.trigger, seed: recipe.seed, cursor: cursor ?? nil, lastTick: cursor ?? nil, now: now,
            maxGap: runner.configuration.maxGap)
        for (occurrence, reason) in result.skipped {
            report.items.append(
                item(recipe, job, "occurrence \(MoltbookDateText.iso(occurrence.nominal))", .skipped, reason))
        }
        if let next = result.next?.fire { report.nextDue = min(report.nextDue ?? next, next) }

        var intents: [JournalIntent] = []
        var positions: [String: QueuePosition] = [:]
        for occurrence in result.due {
            let expander = StepExpander(
                recipe: recipe, job: job, occurrence: occurrence, environment: runner.configuration.environment)
            for index in job.steps.indices {
                let queueKey = queuePath(job.steps[index])
                var position = 0
                if let queueKey {
                    if let local = positions[queueKey] {
                        position = local.next
                    } else {
                        position =
                            (try? await store.read { try $0.queuePosition(recipe: recipeID, queue: queueKey) })??.next
                            ?? 0
                    }
                }
                let outcome: StepExpander.Outcome
                do {
                    outcome = try await expander.expand(
                        step: index, queuePosition: position, now: now, fetch: { try await self.fetch($0) },
                        alreadyDone: { facts.contains($0, $1) })
                } catch let deferred as ReadDeferred {
                    report.items.append(item(recipe, job, "select targets", .deferred, deferred.reason, deferred.until))
                    return  // the cursor stays: planned again next pass
                } catch {
                    report.items.append(item(recipe, job, "select targets", .failed, "\(error)"))
                    report.transientFailures += 1
                    return
                }
                switch outcome {
                case .queueEmpty(let path):
                    report.items.append(
                        item(recipe, job, "post from queue", .skipped, "content queue \(path) is empty"))
                case .writes(let writes):
                    for expanded in writes {
                        intents.append(
                            JournalIntent(
                                key: expanded.key, account: agent, recipe: recipeID, job: jobID,
                                occurrence: occurrence.nominal, step: expanded.step,
                                action: expanded.write.kind.rawValue,
                                target: expanded.write.target, contentHash: expanded.write.contentHash,
                                payload: try? JSONEncoder().encode(expanded.write), notBefore: occurrence.fire))
                        if let queueIndex = expanded.queueIndex, let queueKey {
                            positions[queueKey] = QueuePosition(
                                next: queueIndex + 1, lastItem: expanded.write.title, updatedAt: now)
                        }
                    }
                }
            }
        }
        // Intents, the cursor and the queue positions move together or not at all: a crash
        // before this commit plans the same occurrences again (same keys); after it, the
        // journal has them.
        let snapshot = (intents, positions, result.cursor, now)
        do {
            try await store.transaction { transaction in
                for intent in snapshot.0 { _ = try transaction.recordIntent(intent, at: snapshot.3) }
                for (queue, position) in snapshot.1 {
                    try transaction.setQueuePosition(position, recipe: recipeID, queue: queue)
                }
                try transaction.setScheduleCursor(recipe: recipeID, job: jobID, lastFired: snapshot.2, at: snapshot.3)
            }
        } catch {
            logger.error("could not journal planned writes", metadata: ["agent": "\(agent)", "error": "\(error)"])
            report.transientFailures += 1
        }
    }

    func queuePath(_ step: Step) -> String? {
        if case .post(let action) = step.action, case .queue(let queue) = action.body { return queue.path.value }
        return nil
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
        do {
            switch selector.source {
            case .global: response = try await client.posts(sort: sort, limit: limit)
            case .personal: response = try await client.feed(sort: sort, limit: limit)
            case .submolt(let name): response = try await client.submoltFeed(name, sort: sort, limit: limit)
            case .search(let query):
                let found = try await client.search(query, type: .posts, limit: min(limit, 50))
                response = found.map { page in
                    Page(
                        items: page.items.compactMap(Self.post(from:)), hasMore: page.hasMore,
                        nextCursor: page.nextCursor)
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

    static func post(from result: SearchResult) -> Post? {
        var object: [String: JSONValue] = [
            "id": .string(result.postID ?? result.id), "title": .string(result.title ?? ""),
            "content": result.content.map(JSONValue.string) ?? .null,
        ]
        if let author = result.author { object["author"] = .object(["name": .string(author.name)]) }
        if let created = result.createdAt { object["created_at"] = .string(MoltbookDate.format(created)) }
        return Post(json: .object(object))
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
