import Foundation
import MoltbookAPI
import Recipes
import Storage
import Synchronization

/// A post or comment the duplicate guard has seen: sent (the content ledger) or waiting to be
/// sent (the journal), with what the report line says of it.
struct ContentSighting: Sendable, Equatable {
    var kind: String
    var at: Date
    var journalKey: String?
    var excerpt: String
    var sent: Bool
    /// The near-duplicate sketch (empty for short texts); for a ledger record, parsed from its
    /// stored `signature` only when a long text is compared (`sketch(_:)`).
    var sketch: [UInt32] = []
    /// The stored sketch of a ledger record, not parsed yet.
    var signature: String = ""

    /// The sketch to compare with: kept, or parsed from the stored signature (empty when none).
    var comparableSketch: [UInt32] { sketch.isEmpty ? AccountPass.sketch(signature) : sketch }

    /// One text's sightings have the same: a post is seen under two fingerprints (whole, body).
    var textIdentity: String { "\(kind)|\(at.timeIntervalSince1970)|\(journalKey ?? "")|\(excerpt)" }

    /// Whether it counts for a guard whose window starts at `earliest`: sent since then, or
    /// waiting to be sent (whatever its age).
    func counts(since earliest: Date) -> Bool { !sent || at >= earliest }
}

/// The duplicate guard (issue 18): Moltbook fingerprints what agents publish and suspends for
/// repeats — an hourly cron of one text earned a 23-hour suspension, re-posting content whose
/// challenge failed counted as offense #2 (moltbook-api.md §6.1). A post or comment whose
/// normalised text (case, white space, punctuation and markup aside) the agent already sent
/// within the recipe's window (`duplicates: window:`, 30 days by default), or has waiting in the
/// journal, is not planned: the report says so and names the earlier one. A queue item so
/// skipped is taken (the queue goes on).
extension AccountPass {
    /// How far back the ledger is read and kept: the longest window of the agent's recipes, and
    /// never less than the default (another recipe of the agent, or a later edit, may want it).
    var duplicateWindow: TimeInterval {
        TimeInterval(recipes.map(\.duplicateWindow).reduce(DuplicateSettings.defaultWindow, max))
    }

    /// What the guard compares against: the content ledger within the window and the journal's
    /// posts and comments not yet sent. Read once per pass; the ledger's part is kept in the
    /// runner between passes and only the records since the last pass are read
    /// (`Runner.LedgerSightings`), unless the ledger's generation changed (a withdrawn write's
    /// record forgotten, here or by `moltipass cancel`).
    func contentSightings() async -> ContentSightings {
        if let seen = memo.contentSeen { return seen }
        let (agent, since) = (agent, now.addingTimeInterval(-duplicateWindow))
        // Taken out of the runner while it grows, so that adding the new records changes it in
        // place instead of copying a month of sightings; put back below.
        var cached = runner.ledgerSightings.withLock { $0.removeValue(forKey: agent) }
        let from = cached.map { max($0.through, since) } ?? since
        let read = try? await store.read { reader in
            (
                try await reader.contentRecords(account: agent, since: from),
                try await reader.pendingJournalEntries(account: agent),
                try await reader.limiterState(account: agent, key: PendingWrites.ledgerGenerationKey)
            )
        }
        var ledger: Runner.LedgerSightings
        var records = read?.0 ?? []
        if cached != nil, cached?.generation == read?.2, let kept = cached.take() {
            ledger = kept  // moved out, so that it is the only reference and grows in place
        } else {
            ledger = Runner.LedgerSightings(generation: read?.2)
            if cached.take() != nil {
                // The ledger lost a record since: read it whole again.
                records = (try? await store.read { try await $0.contentRecords(account: agent, since: since) }) ?? []
            }
        }
        records += await seedFromServer().filter { $0.recordedAt >= since }
        for record in records {
            ledger.add(record)
        }
        for record in await refreshFromServer(knowing: ledger, since: since) {
            ledger.add(record)
        }
        ledger.compact(before: since)
        runner.ledgerSightings.withLock { [ledger] in $0[agent] = ledger }
        var seen = ContentSightings(ledger: ledger)
        seen.notePending(read?.1 ?? [])
        memo.contentSeen = seen
        return seen
    }

    /// The earlier text `print` nearly repeats (`ContentFingerprint.nearDuplicateSimilarity`),
    /// with how similar, if any; never the write's own journal entry. Of several as similar, the
    /// newest (then the first excerpt, then fingerprint): the same answer in every process.
    static func nearDuplicate(
        of print: ContentFingerprint, among planned: [String: ContentSighting], _ seen: ContentSightings,
        except key: String, since earliest: Date
    ) -> (sighting: ContentSighting, similarity: Double)? {
        guard !print.sketch.isEmpty else { return nil }
        var best: (exact: String, sighting: ContentSighting, similarity: Double)?
        // The sketches first: the sighting is looked up only for a text at the threshold.
        func consider(_ exact: String, _ sketch: [UInt32], _ sighting: () -> ContentSighting?) {
            guard !sketch.isEmpty else { return }
            let similarity = ContentFingerprint.similarity(print.sketch, sketch)
            guard similarity >= ContentFingerprint.nearDuplicateSimilarity, let sighting = sighting(),
                sighting.journalKey != key, sighting.counts(since: earliest)
            else { return }
            let candidate = (exact: exact, sighting: sighting, similarity: similarity)
            if let known = best, !Self.beats(candidate, known) { return }
            best = candidate
        }
        for (exact, sighting) in planned {
            consider(exact, sighting.comparableSketch) { sighting }
        }
        seen.forEachNearCandidate(of: print.sketch) { exact, sketch in consider(exact, sketch) { seen[exact: exact] } }
        return best.map { ($0.sighting, $0.similarity) }
    }

    /// Whether `candidate` is the better earlier text to name: more similar, then newer, then
    /// the smaller excerpt, then fingerprint.
    private static func beats(
        _ candidate: (exact: String, sighting: ContentSighting, similarity: Double),
        _ known: (exact: String, sighting: ContentSighting, similarity: Double)
    ) -> Bool {
        if candidate.similarity != known.similarity { return candidate.similarity > known.similarity }
        if candidate.sighting.at != known.sighting.at { return candidate.sighting.at > known.sighting.at }
        if candidate.sighting.excerpt != known.sighting.excerpt {
            return candidate.sighting.excerpt < known.sighting.excerpt
        }
        return candidate.exact < known.exact
    }

    /// Parsed sketches of stored signatures, kept for the life of the process: the ledger's
    /// records are compared on every pass that plans a long text, and parsing them each time was
    /// a third of a month's plan (bench, 2026-11-24).
    static let parsedSketches = Mutex<[String: [UInt32]]>([:])

    /// The sketch a stored signature holds (empty when none or unreadable).
    static func sketch(_ signature: String) -> [UInt32] {
        guard !signature.isEmpty else { return [] }
        if let known = parsedSketches.withLock({ $0[signature] }) { return known }
        let parsed = ContentFingerprint.sketch(from: signature) ?? []
        parsedSketches.withLock { cache in
            if cache.count > 200_000 { cache.removeAll(keepingCapacity: true) }
            cache[signature] = parsed
        }
        return parsed
    }

    /// The start of what a write publishes, for report lines.
    static func excerpt(_ write: PlannedWrite) -> String {
        PlannedWrite.excerpt(write.kind == .post ? (write.title ?? "") : (write.content ?? ""))
    }

    /// The ledger records of a post or comment about to be sent (none for other writes).
    func contentRecords(_ write: PlannedWrite, key: String) -> [ContentRecord] {
        ContentFingerprint(write).map {
            $0.records(
                account: agent, kind: ContentFingerprint.ledgerKind(write.kind), at: now, key: key,
                excerpt: Self.excerpt(write))
        } ?? []
    }
}

/// Seeding the ledger from the server (issue 18, "the server is the record"): a new, emptied or
/// replaced state file knows nothing of what the agent already published, and used to post a
/// queue's first item again. Before the first post or comment a state file plans for an agent,
/// the agent's recent posts and comments as the server shows them are fingerprinted into the
/// ledger (the profile's `recentPosts`/`recentComments`; where a server has no profile, its
/// newest posts by the agent). Once per state file and agent (`ledger-seeded`).
///
/// Refreshed on every later pass that plans a post or comment (issue 34, observation 8): two
/// state files used alternately for one agent (two hosts' cron jobs, a volume restored from a
/// copy), another runner, or an operator posting by hand publish what this state never
/// recorded, and the queue's next item by this state's count was posted a second time. What the
/// server shows and the ledger lacks is recorded (the guard then skips it, and a queue takes the
/// item), and the log says that someone else posts for the agent. One read per such pass, a
/// pass that is about to spend a post or comment slot anyway; not in `plan`, whose simulated
/// server has no other writer. A refresh the limiter defers or the server fails is not waited
/// for: the pass goes on with what the state knows, as it did before the refresh existed. Like
/// the seed, it sees what the profile lists (Moltbook: the newest few posts and comments), so a
/// text another writer published further back than that is not seen.
extension AccountPass {
    /// `-2`: seeded again once, with posts' bodies fingerprinted on their own (issue 33,
    /// observation 9), for state files seeded before.
    static let seededKey = "ledger-seeded-2"

    /// Sightings of what the server shows the agent published; empty when it was done before
    /// or cannot be done now (then tried again on a later pass, before a later write).
    func seedFromServer() async -> [ContentRecord] {
        let agent = agent
        let seeded = (try? await store.read { try await $0.limiterState(account: agent, key: Self.seededKey) }) ?? nil
        guard seeded == nil else { return [] }
        memo.serverRecordRead = true
        guard let read = await readServerRecord() else { return [] }
        let (stored, now) = (read.texts.flatMap { $0 }, now)
        do {
            try await store.transaction { transaction in
                for record in stored { try await transaction.recordContent(record) }
                try await transaction.setLimiterState(Data("{}".utf8), account: agent, key: Self.seededKey, at: now)
            }
        } catch {
            logger.error("could not store the seeded content ledger", metadata: ["agent": "\(agent)"])
        }
        logger.info(
            "content ledger seeded from the server",
            metadata: ["agent": "\(agent)", "posts": "\(read.posts)", "comments": "\(read.comments)"])
        return stored
    }

    /// What the server shows the agent published since `earliest` (the duplicate window's start:
    /// older texts have left the ledger, and are no one else's for that) that `ledger` lacks,
    /// recorded in the state: the refresh after the seed (above). Empty when seeded in this
    /// pass, in `plan`, or when the read cannot be made now.
    func refreshFromServer(knowing ledger: Runner.LedgerSightings, since earliest: Date) async -> [ContentRecord] {
        guard runner.configuration.refreshesServerRecord, !memo.serverRecordRead else { return [] }
        memo.serverRecordRead = true
        guard let read = await readServerRecord() else { return [] }
        // A text is new to the state when none of its fingerprints is known (a post whose body
        // alone is known went out under another title: someone else's post all the same).
        let unknown = read.texts.filter { records in
            !records.isEmpty && records.allSatisfy { $0.recordedAt >= earliest }
                && !records.contains { ledger.sightings[$0.fingerprint] != nil }
        }
        guard !unknown.isEmpty else { return [] }
        let fresh = unknown.flatMap { $0 }
        let (agent, stored) = (agent, fresh)
        do {
            try await store.transaction { transaction in
                for record in stored { try await transaction.recordContent(record) }
            }
        } catch {
            logger.error("could not store the content ledger", metadata: ["agent": "\(agent)"])
        }
        let excerpts = unknown.compactMap { $0.first?.excerpt }.sorted()
        logger.warning(
            "the server shows posts or comments of this agent that this state did not send: another state file, runner or person posts for it; their texts are not repeated",
            metadata: [
                "agent": "\(agent)", "count": "\(unknown.count)",
                "texts": "\(excerpts.prefix(5).map { "\"\($0)\"" }.joined(separator: ", "))",
            ])
        return fresh
    }

    /// The agent's recent posts and comments as the server shows them, as ledger records (dated
    /// when the server says they were published), one list per text; nil when the read cannot
    /// be made now.
    func readServerRecord() async -> (texts: [[ContentRecord]], posts: Int, comments: Int)? {
        guard let client = await requireClient() else { return nil }
        guard case .allowed = limiter.reserve([.read], at: now) else { return nil }
        var posts: [Post] = []
        var comments: [Comment] = []
        do {
            let profile = try await client.profile(name: identity.name)
            absorb(profile.rateLimit, status: profile.status, action: nil, request: .read)
            posts = profile.value.recentPosts
            comments = profile.value.recentComments
        } catch  where [.notFound, .methodNotAllowed].contains(error.code) {
            absorb(error.rateLimit, status: error.status ?? 0, action: nil, request: .read)
            guard case .allowed = limiter.reserve([.read], at: now),
                let page = try? await client.posts(sort: .new, limit: 100)
            else { return nil }
            absorb(page.rateLimit, status: page.status, action: nil, request: .read)
            posts = page.value.items.filter { identity.isSelf($0.author) }
        } catch {
            absorb(error.rateLimit, status: error.status ?? 0, action: nil, request: .read)
            return nil  // not now: the next pass tries again
        }
        let own = comments.filter { identity.isSelf($0.author) || $0.author == nil }
        let texts =
            posts.map { post in
                contentRecords(
                    PlannedWrite(kind: .post, title: post.title, content: post.content, url: post.url), key: ""
                )
                .map { seededRecord($0, at: post.createdAt) }
            }
            + own.map { comment in
                contentRecords(PlannedWrite(kind: .comment, content: comment.content), key: "").map {
                    seededRecord($0, at: comment.createdAt)
                }
            }
        return (texts, posts.count, own.count)
    }

    /// A record seeded from the server: dated when the server says it was published.
    func seededRecord(_ record: ContentRecord, at created: Date?) -> ContentRecord {
        var record = record
        record.journalKey = nil
        record.recordedAt = min(created ?? now, now)
        return record
    }
}
