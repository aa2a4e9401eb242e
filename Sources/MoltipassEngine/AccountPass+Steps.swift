import Foundation
import MoltbookAPI
import RateLimiting
import Recipes
import Storage

/// What the driver reads for planning: the steps' selections (through the limiter); the dedup
/// facts a done write leaves; the `max_per_day` counts and the targets already acted on.
extension AccountPass {
    /// Reads the posts a selector names, through the limiter.
    func fetch(_ selector: Selector) async throws -> [Post] {
        guard let client = await requireClient() else {
            throw ReadDeferred(until: nil, reason: access.authBroken ?? access.clientError ?? "no client")
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

    /// The dedup fact a done write leaves: kind and value (nil value: any).
    static func fact(for kind: PlannedWrite.Kind) -> (DedupKind, String?)? {
        switch kind {
        case .post: nil
        case .comment: (.comment, nil)
        case .upvotePost: (.postVote, "up")
        case .downvotePost: (.postVote, "down")
        case .upvoteComment: (.commentVote, "up")
        case .downvoteComment: (.commentVote, "down")
        case .follow: (.follow, "yes")
        case .unfollow: (.follow, "no")
        case .subscribe: (.subscribe, "yes")
        case .unsubscribe: (.subscribe, "no")
        case .reply: (.reply, nil)
        case .directMessage: (.dm, nil)
        case .approveRequest: (.dmApprove, nil)
        }
    }
}

/// The targets an account already acted on, per kind, as the sets the store handed out.
struct DoneTargets: Sendable {
    /// The kinds whose journal entries count as done in any state (a second vote would toggle
    /// the first off, a second comment repeat it). Every kind is decided, so a new one is too.
    static let journaledOnce = PlannedWrite.Kind.allCases.filter { kind in
        switch kind {
        // An answer is given once per trigger, ever: a journaled one counts in any state.
        case .comment, .upvotePost, .downvotePost, .upvoteComment, .downvoteComment, .reply, .directMessage,
            .approveRequest:
            true
        case .post, .follow, .unfollow, .subscribe, .unsubscribe: false
        }
    }

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
