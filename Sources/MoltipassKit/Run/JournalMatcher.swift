import Foundation
import Storage

/// Finds the journal entry behind a `RunReport` item, for the `step` and `request_id` (the
/// idempotency key) of its log line. A report item names its write by agent, recipe, job and
/// summary; the journal holds the same write with its step and key. Candidates are the
/// account's unfinished entries and the entries finished since the pass began; each is given
/// to one item at most, oldest first. Items that do not come from the journal (a skipped
/// occurrence, a target selection) or match no entry unambiguously get none.
struct JournalMatcher {
    private var bySummary: [String: [JournalEntry]] = [:]
    private var byKind: [String: [JournalEntry]] = [:]
    private var used: Set<String> = []

    static func load(store: (any StateStore)?, report: RunReport, since: Date) async -> JournalMatcher {
        var matcher = JournalMatcher()
        guard let store else { return matcher }
        let agents = Set(report.items.filter { $0.outcome != .skipped }.map(\.agent)).sorted()
        for agent in agents {
            let read: [JournalEntry]? = try? await store.read { reader -> [JournalEntry] in
                let pending = try reader.pendingJournalEntries(account: agent)
                let finished = try reader.journalEntries(account: agent, states: [.done, .failed])
                // A millisecond of slack: times go through SQLite as seconds since 1970 (a Double).
                return pending + finished.filter { $0.updatedAt >= since.addingTimeInterval(-0.001) }
            }
            let entries = read ?? []
            let ordered = entries.sorted { (a: JournalEntry, b: JournalEntry) -> Bool in
                (a.occurrence, a.step, a.key) < (b.occurrence, b.step, b.key)
            }
            for entry in ordered { matcher.add(entry) }
        }
        return matcher
    }

    mutating func add(_ entry: JournalEntry) {
        if let payload = entry.payload, let write = try? JSONDecoder().decode(PlannedWrite.self, from: payload) {
            bySummary[Self.key(entry.account, entry.recipe, entry.job, write.summary), default: []].append(entry)
        }
        byKind[Self.key(entry.account, entry.recipe, entry.job, entry.action), default: []].append(entry)
    }

    /// The entry for `item`: the first unused one with the item's summary, else the only unused
    /// one of the item's action kind (items that name the write by kind alone).
    mutating func take(_ item: RunReport.Item) -> JournalEntry? {
        guard item.outcome != .skipped else { return nil }
        let key = Self.key(item.agent, item.recipe, item.job, item.action)
        if let entry = bySummary[key]?.first(where: { !used.contains($0.key) }) {
            used.insert(entry.key)
            return entry
        }
        let candidates = (byKind[key] ?? []).filter { !used.contains($0.key) }
        guard candidates.count == 1, let entry = candidates.first else { return nil }
        used.insert(entry.key)
        return entry
    }

    static func key(_ parts: String...) -> String { parts.joined(separator: "\u{1F}") }
}
