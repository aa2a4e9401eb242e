import Foundation
import Storage
import Testing

/// Found by `scripts/reliability/fault-storm` and `kill9` (docs/reliability.md): a content
/// queue's posts went out as Item 0, 2, 1, 3.
@Suite struct JournalOrderRegressionTests {
    /// Entries recorded at the same instant (one pass plans several occurrences) come back in
    /// occurrence, then step order, whatever their idempotency keys (hashes) say; in every store.
    @Test(arguments: StoreBackend.all)
    func samePassEntriesInOccurrenceOrder(backend: StoreBackend) async throws {
        try await backend.withStore { store in try await Self.samePassEntriesInOccurrenceOrder(store) }
    }

    static func samePassEntriesInOccurrenceOrder(_ store: any StateStore) async throws {
        // Keys sorting the other way round from (occurrence, step).
        let planned: [(key: String, occurrence: Double, step: Int)] = [
            ("f-first", 0, 0), ("e-first-step-1", 0, 1), ("d-second", 1_800, 0), ("c-third", 3_600, 0),
        ]
        try await store.transaction { tx in
            for item in planned.reversed() {
                var intent = JournalIntent.sample(item.key, step: item.step)
                intent.occurrence = T.at(item.occurrence)
                _ = try await tx.recordIntent(intent, at: T.at(7_200))
            }
            // Recorded earlier: still first.
            _ = try await tx.recordIntent(.sample("z-older"), at: T.at(60))
            _ = try await tx.markSent(key: "d-second", at: T.at(7_201))
        }
        let (pending, intents) = try await store.read { reader in
            (
                try await reader.pendingJournalEntries(account: "alice").map(\.key),
                try await reader.journalEntries(account: "alice", states: [.intent, .sent]).map(\.key)
            )
        }
        let expected = ["z-older", "f-first", "e-first-step-1", "d-second", "c-third"]
        #expect(pending == expected)
        #expect(intents == expected)
    }
}
