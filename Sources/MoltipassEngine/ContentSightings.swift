import Foundation
import MoltbookAPI
import Storage

/// What the duplicate guard compares a text with, for one agent and one pass: the content
/// ledger's sightings as the runner keeps them between passes, and beside them what the pass
/// adds (the journal's writes not sent yet, then each job's planned texts).
///
/// The ledger's part is shared with the runner and never changed through here: a month of an
/// agent's texts is ~1,700 sightings, and copying them whenever a pass noted a planned text was
/// a quarter of a month's `plan` (bench/notes.md, "Plan speed"). A fingerprint already known
/// keeps its first sighting (the ledger's before the journal's, the journal's before the pass's).
struct ContentSightings: Sendable, ExpressibleByDictionaryLiteral {
    private let ledger: Runner.LedgerSightings
    private var added: [String: ContentSighting] = [:]

    init(ledger: Runner.LedgerSightings = Runner.LedgerSightings()) { self.ledger = ledger }

    /// Sightings without a ledger (tests, and callers that build them by hand).
    init(dictionaryLiteral elements: (String, ContentSighting)...) {
        self.init()
        for (exact, sighting) in elements { note(sighting, as: exact) }
    }

    /// The sighting of the text with this exact fingerprint, if any.
    subscript(exact exact: String) -> ContentSighting? { ledger.sightings[exact] ?? added[exact] }

    /// How many distinct texts are known.
    var count: Int { ledger.sightings.count + added.count }

    /// Every sighting, in no particular order (a post's may come twice: under its whole text's
    /// fingerprint and under its body's).
    var all: [ContentSighting] { Array(ledger.sightings.values) + Array(added.values) }

    /// The first lines of the newest 20 texts among `sightings`, newest first, each text once:
    /// what a generator is given as `recent_titles`.
    static func recentTitles(_ sightings: [ContentSighting]) -> [String] {
        var seen: Set<String> = []
        return
            sightings
            .sorted { $0.at != $1.at ? $0.at > $1.at : $0.excerpt < $1.excerpt }
            .filter { seen.insert($0.textIdentity).inserted }
            .prefix(20).map(\.excerpt)
    }

    /// How many distinct texts are known (a post's two fingerprints count once).
    var textCount: Int { Set(all.map(\.textIdentity)).count }

    /// Notes `sighting` under its exact fingerprint, unless that text is already known.
    mutating func note(_ sighting: ContentSighting, as exact: String) {
        guard self[exact: exact] == nil else { return }
        added[exact] = sighting
    }

    /// Notes the posts and comments of `entries` still waiting to be sent (intent or failed).
    mutating func notePending(_ entries: [JournalEntry]) {
        for entry in entries where entry.state == .intent || entry.state == .failed {
            guard let write = entry.payload.flatMap(PlannedWrite.init(payload:)), let print = ContentFingerprint(write)
            else { continue }
            let sighting = ContentSighting(
                kind: ContentFingerprint.ledgerKind(write.kind), at: entry.createdAt, journalKey: entry.key,
                excerpt: AccountPass.excerpt(write), sent: false, sketch: print.sketch)
            for exact in print.exacts { note(sighting, as: exact) }
        }
    }

    /// The earlier text `print` repeats: one of its fingerprints among `planned` (this pass's)
    /// or the sightings, else a near-duplicate (with how similar); never the write's own entry
    /// (`key`), and only what counts since `earliest`.
    func repeated(
        by print: ContentFingerprint, planned: [String: ContentSighting] = [:], except key: String, since earliest: Date
    ) -> (sighting: ContentSighting, similarity: Double?, bodyOnly: Bool)? {
        for (index, exact) in print.exacts.enumerated() {
            if let earlier = [planned[exact], self[exact: exact]].compactMap({ $0 })
                .first(where: { $0.journalKey != key && $0.counts(since: earliest) })
            {
                return (earlier, nil, index > 0)
            }
        }
        return AccountPass.nearDuplicate(of: print, among: planned, self, except: key, since: earliest)
            .map { ($0.sighting, $0.similarity, false) }
    }

    /// The report's words for a repeat that `repeated(by:…)` found, ending with `consequence`.
    static func describe(
        _ found: (sighting: ContentSighting, similarity: Double?, bodyOnly: Bool), consequence: String
    ) -> (when: String, reason: String) {
        let earlier = found.sighting
        let when = earlier.sent ? "sent \(MoltbookDateText.iso(earlier.at))" : "waiting to be sent"
        let how =
            if let similarity = found.similarity {
                "duplicate content: \(Int((similarity * 100).rounded(.down)))% the same as the "
            } else if found.bodyOnly {
                "duplicate content: the same text under another title as the "
            } else {
                "duplicate content: the same text as the "
            }
        return (
            when,
            how + "\(earlier.kind) \(when) (\"\(earlier.excerpt)\""
                + (earlier.journalKey.map { ", journal key \($0)" } ?? "") + "); \(consequence)"
        )
    }

    /// Calls `body` with the fingerprint and sketch of every text that one with `sketch` may
    /// nearly repeat: the ledger's that share a hash of both bands with it (no other can reach
    /// the threshold: `ContentFingerprint.nearDuplicateBand(count:)`; one sharing several comes
    /// several times), and every one added.
    func forEachNearCandidate(of sketch: [UInt32], _ body: (String, [UInt32]) -> Void) {
        for hash in sketch.prefix(ContentFingerprint.nearDuplicateBand(count: sketch.count)) {
            for number in ledger.near[hash] ?? [] {
                let candidate = ledger.sketched[Int(number)]
                body(candidate.fingerprint, candidate.sketch)
            }
        }
        for (exact, sighting) in added {
            body(exact, sighting.comparableSketch)
        }
    }
}
