import Foundation
import MoltbookAPI
import Recipes
import Storage

/// What an agent's state file says it published or has waiting, as the duplicate guard sees it:
/// the content ledger within the window and the journal's posts and comments not yet sent.
/// `moltipass generate` reads it once, from a snapshot (never written), for the context's
/// `recent_titles` and the duplicate guard's verdict on a generated text.
///
/// The planning keeps its own view (`AccountPass.contentSightings`, which also seeds the ledger
/// from the server before a state file's first post); the sightings, the recent titles and the
/// guard's words here are built the same way.
public struct ContentHistory: Sendable {
    let sightings: ContentSightings
    public let now: Date

    /// How many distinct texts the state holds for the agent.
    public var count: Int { sightings.textCount }

    /// Reads `agent`'s texts from `store`: sent since `window` seconds before `now` (the
    /// longest of the agent's recipes' windows, at least the default), and all still waiting.
    public static func read(from store: any StateStore, agent: String, window: Int, now: Date) async throws
        -> ContentHistory
    {
        let since = now.addingTimeInterval(-TimeInterval(max(window, DuplicateSettings.defaultWindow)))
        let (records, pending) = try await store.read { reader in
            (
                try await reader.contentRecords(account: agent, since: since),
                try await reader.pendingJournalEntries(account: agent)
            )
        }
        var ledger = Runner.LedgerSightings()
        for record in records { ledger.add(record) }
        var seen = ContentSightings(ledger: ledger)
        seen.notePending(pending)
        return ContentHistory(sightings: seen, now: now)
    }

    /// The agent's recent posts and comments (first lines), newest first, at most 20: what the
    /// planning gives a generator as `recent_titles`.
    public var recentTitles: [String] {
        ContentSightings.recentTitles(sightings.all)
    }

    /// Why the duplicate guard refuses `write` (planned under `key`, by a recipe comparing over
    /// `window` seconds), in the planning's words; nil when it repeats nothing.
    public func duplicate(of write: PlannedWrite, key: String, window: Int) -> String? {
        guard let print = ContentFingerprint(write) else { return nil }
        let earliest = now.addingTimeInterval(-TimeInterval(window))
        guard let found = sightings.repeated(by: print, except: key, since: earliest) else { return nil }
        return ContentSightings.describe(found, consequence: "Moltbook suspends agents for repeated content").reason
    }
}
