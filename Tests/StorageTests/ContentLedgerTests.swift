import Foundation
import MoltipassTesting
import Testing

@testable import Storage

/// The duplicate guard's content ledger, on every store.
@Suite struct ContentLedgerTests {
    static func record(_ account: String, _ fingerprint: String, at seconds: Double) -> ContentRecord {
        ContentRecord(
            account: account, kind: "post", fingerprint: fingerprint, signature: "0000002a", recordedAt: T.at(seconds),
            journalKey: nil, excerpt: "text \(fingerprint)")
    }

    /// Records come back per account from an instant on, oldest first (ties in insertion
    /// order); pruning deletes the older ones; a rolled-back transaction leaves nothing.
    @Test(arguments: StoreBackend.all)
    func recordReadPrune(backend: StoreBackend) async throws {
        try await backend.withStore { store in try await Self.recordReadPrune(store) }
    }

    static func recordReadPrune(_ store: any StateStore) async throws {
        try await store.transaction { tx in
            try await tx.recordContent(Self.record("a", "f2", at: 20))
            try await tx.recordContent(Self.record("a", "f1", at: 10))
            try await tx.recordContent(Self.record("a", "f3", at: 20))
            try await tx.recordContent(Self.record("b", "g1", at: 15))
        }
        struct Rollback: Error {}
        _ = try? await store.transaction { tx in
            try await tx.recordContent(Self.record("a", "lost", at: 30))
            try await tx.recordContent(Self.record("a", "lost too", at: 20))
            try await tx.recordContent(Self.record("c", "lost with its account", at: 5))
            throw Rollback()
        }
        let all = try await store.read { try await $0.contentRecords(account: "a", since: T.at(0)) }
        #expect(all.map(\.fingerprint) == ["f1", "f2", "f3"])
        #expect(all.first == Self.record("a", "f1", at: 10))
        #expect(try await store.read { try await $0.contentRecords(account: "c", since: T.at(0)) }.isEmpty)
        let recent = try await store.read { try await $0.contentRecords(account: "a", since: T.at(20)) }
        #expect(recent.map(\.fingerprint) == ["f2", "f3"])
        for (since, expected) in [(9.0, ["f1", "f2", "f3"]), (11, ["f2", "f3"]), (21, []), (-5, ["f1", "f2", "f3"])] {
            let read = try await store.read { try await $0.contentRecords(account: "a", since: T.at(since)) }
            #expect(read.map(\.fingerprint) == expected, "since \(since)")
        }
        let pruned = try await store.transaction { try await $0.pruneContent(account: "a", before: T.at(15)) }
        #expect(pruned == 1)
        #expect(try await store.read { try await $0.contentRecords(account: "a", since: T.at(0)) }.count == 2)
        #expect(try await store.read { try await $0.contentRecords(account: "b", since: T.at(0)) }.count == 1)
    }
}
