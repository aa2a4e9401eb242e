import Foundation
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

    /// Every sighting, in no particular order.
    var all: [ContentSighting] { Array(ledger.sightings.values) + Array(added.values) }

    /// Notes `sighting` under its exact fingerprint, unless that text is already known.
    mutating func note(_ sighting: ContentSighting, as exact: String) {
        guard self[exact: exact] == nil else { return }
        added[exact] = sighting
    }

    /// Notes the posts and comments of `entries` still waiting to be sent (intent or failed).
    mutating func notePending(_ entries: [JournalEntry]) {
        for entry in entries where entry.state == .intent || entry.state == .failed {
            guard let write = entry.payload.flatMap(PlannedWrite.init(payload:)), let print = ContentFingerprint(write),
                self[exact: print.exact] == nil
            else { continue }
            note(
                ContentSighting(
                    kind: ContentFingerprint.ledgerKind(write.kind), at: entry.createdAt, journalKey: entry.key,
                    excerpt: AccountPass.excerpt(write), sent: false, sketch: print.sketch),
                as: print.exact)
        }
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
