import Foundation
import MoltbookAPI
import Recipes
import Scheduling
import Storage

/// What planning reads and keeps per pass: the steps' selections (through the limiter), the
/// `max_per_day` counts, the queue ledger and the dedup facts; report lines of a job.
extension AccountPass {
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
