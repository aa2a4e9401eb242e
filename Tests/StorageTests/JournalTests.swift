import Foundation
import MoltipassTesting
import Testing

@testable import Storage

@Suite struct JournalTests {
    /// recordIntent inserts once; a second call, even after reopening and a state change,
    /// returns the existing entry untouched.
    @Test(arguments: StoreBackend.durable)
    func recordIntentIsIdempotentAcrossReopen(backend: StoreBackend) async throws {
        try await backend.withState { state in
            let first = try await state.open()
            let created = try await first.recordIntent(.sample(), at: T.t0)
            _ = try await first.markSent(key: "k1", at: T.at(5))
            try await state.close(first)

            let second = try await state.open()
            var changed = JournalIntent.sample()
            changed.payload = Data("other".utf8)
            let again = try await second.recordIntent(changed, at: T.at(10))
            #expect(created.inserted)
            #expect(created.entry.state == .intent)
            #expect(created.entry.attempts == 0)
            #expect(!again.inserted)
            #expect(again.entry.state == .sent)
            #expect(again.entry.attempts == 1)
            #expect(again.entry.createdAt == T.t0)
            #expect(again.entry.payload == JournalIntent.sample().payload)
        }
    }

    /// Every field of an intent round-trips, and markSent / markDone set attempts, times and the remote id.
    @Test(arguments: StoreBackend.durable)
    func happyPath(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            var intent = JournalIntent.sample()
            intent.notBefore = T.at(30)
            let recorded = try await store.recordIntent(intent, at: T.t0).entry
            let sent = try await store.markSent(key: "k1", at: T.at(31))
            let done = try await store.markDone(key: "k1", remoteID: "c-42", at: T.at(32))
            #expect(
                recorded
                    == JournalEntry(
                        intent: JournalIntent(
                            key: "k1", account: "alice", recipe: "daily", job: "greet", occurrence: T.t0, step: 0,
                            action: "comment", target: "p1", contentHash: "h-k1", payload: intent.payload,
                            notBefore: T.at(30)),
                        state: .intent, attempts: 0, createdAt: T.t0, updatedAt: T.t0, sentAt: nil, remoteID: nil,
                        lastError: nil))
            #expect(sent.state == .sent && sent.attempts == 1 && sent.sentAt == T.at(31) && sent.nextAttemptAt == nil)
            #expect(done.state == .done && done.remoteID == "c-42" && done.updatedAt == T.at(32))
            #expect(done.createdAt == T.t0)
        }
    }

    /// Legal paths: sent → failed(retry) → sent → uncertain → sent → done; remote id kept when nil.
    @Test(arguments: StoreBackend.durable)
    func retryAndReconcilePaths(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            _ = try await store.recordIntent(.sample(), at: T.t0)
            _ = try await store.markSent(key: "k1", at: T.at(1))
            let failed = try await store.markFailed(key: "k1", reason: "429", retryAt: T.at(60), at: T.at(2))
            #expect(failed.state == .failed && failed.lastError == "429" && failed.nextAttemptAt == T.at(60))
            _ = try await store.markSent(key: "k1", at: T.at(60))
            let uncertain = try await store.markUncertain(key: "k1", reason: "timeout", at: T.at(70))
            #expect(uncertain.state == .uncertain && uncertain.lastError == "timeout")
            let resent = try await store.markSent(key: "k1", at: T.at(80))
            #expect(resent.attempts == 3)
            _ = try await store.markDone(key: "k1", remoteID: "c-1", at: T.at(81))
            let entry = try await store.journalEntry(key: "k1")
            #expect(entry?.remoteID == "c-1")
        }
    }

    /// The allowed transitions, as a table over every pair of states.
    @Test(arguments: JournalState.allCases)
    func transitionTable(from: JournalState) {
        let allowed: [JournalState: Set<JournalState>] = [
            .intent: [.sent, .done, .failed],
            .sent: [.done, .failed, .uncertain],
            .uncertain: [.done, .failed, .sent, .uncertain],
            .failed: [.sent, .done, .failed],
            .done: [],
        ]
        for to in JournalState.allCases {
            #expect(from.canMove(to: to) == allowed[from]!.contains(to), "\(from) → \(to)")
        }
    }

    /// A finished entry refuses every transition with `.illegalTransition` and stays as it was;
    /// recording its intent again returns it as done.
    @Test(arguments: StoreBackend.durable)
    func illegalTransitionsRejected(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            _ = try await store.recordIntent(.sample(), at: T.t0)
            let uncertainFromIntent = await #expect(throws: StorageError.self) {
                try await store.markUncertain(key: "k1", reason: "x", at: T.at(1))
            }
            #expect(uncertainFromIntent?.code == .illegalTransition)
            _ = try await store.markSent(key: "k1", at: T.at(1))
            let done = try await store.markDone(key: "k1", remoteID: "p-9", at: T.at(2))
            for attempt in 0..<4 {
                let error = await #expect(throws: StorageError.self) {
                    switch attempt {
                    case 0: try await store.markSent(key: "k1", at: T.at(3))
                    case 1: try await store.markFailed(key: "k1", reason: "x", retryAt: nil, at: T.at(3))
                    case 2: try await store.markUncertain(key: "k1", reason: "x", at: T.at(3))
                    default: try await store.markDone(key: "k1", remoteID: nil, at: T.at(3))
                    }
                }
                #expect(error?.code == .illegalTransition)
            }
            let again = try await store.recordIntent(.sample(), at: T.at(4))
            #expect(!again.inserted)
            #expect(again.entry == done)
        }
    }

    /// Marking an unknown key fails with `.notFound`.
    @Test(arguments: StoreBackend.durable)
    func unknownKey(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let error = await #expect(throws: StorageError.self) { try await store.markSent(key: "nope", at: T.t0) }
            #expect(error?.code == .notFound)
        }
    }

    /// Pending lists intent, sent, uncertain and failed-with-retry entries of one account, oldest
    /// first; uncertain lists only uncertain ones; done and terminal failures are finished.
    @Test(arguments: StoreBackend.durable)
    func pendingAndUncertainQueries(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            try await store.transaction { tx in
                for (index, key) in ["intent", "sent", "uncertain", "retry", "gaveUp", "done"].enumerated() {
                    _ = try await tx.recordIntent(.sample(key, step: index), at: T.at(Double(index)))
                }
                _ = try await tx.recordIntent(.sample("bob-intent", account: "bob"), at: T.at(9))
                for key in ["sent", "uncertain", "retry", "gaveUp", "done"] {
                    _ = try await tx.markSent(key: key, at: T.at(10))
                }
                _ = try await tx.markUncertain(key: "uncertain", reason: "reset", at: T.at(11))
                _ = try await tx.markFailed(key: "retry", reason: "429", retryAt: T.at(100), at: T.at(11))
                _ = try await tx.markFailed(key: "gaveUp", reason: "404", retryAt: nil, at: T.at(11))
                _ = try await tx.markDone(key: "done", remoteID: "c", at: T.at(11))
            }
            let (pending, uncertain, failed) = try await store.read { reader in
                (
                    try await reader.pendingJournalEntries(account: "alice").map(\.key),
                    try await reader.uncertainJournalEntries(account: "alice").map(\.key),
                    try await reader.journalEntries(account: "alice", states: [.failed]).map(\.key)
                )
            }
            #expect(pending == ["intent", "sent", "uncertain", "retry"])
            #expect(uncertain == ["uncertain"])
            #expect(failed == ["retry", "gaveUp"])
        }
    }

    /// Pruning deletes one account's done entries created before the cut-off, nothing else:
    /// not newer ones, not unfinished or finally failed ones, not another account's. Facts and
    /// challenges that pointed at a deleted entry stay, their journal key cleared; a rolled-back
    /// prune deletes nothing.
    @Test(arguments: StoreBackend.all)
    func pruneDeletesOnlyOldDoneEntriesOfTheAccount(backend: StoreBackend) async throws {
        try await backend.withStore { store in try await Self.pruneDeletesOnlyOldDoneEntriesOfTheAccount(store) }
    }

    static func pruneDeletesOnlyOldDoneEntriesOfTheAccount(_ store: any StateStore) async throws {
        try await store.transaction { tx in
            for key in ["old-done", "old-done-2", "old-intent", "old-failed"] {
                _ = try await tx.recordIntent(.sample(key), at: T.at(10))
            }
            _ = try await tx.recordIntent(.sample("new-done"), at: T.at(1_000))
            _ = try await tx.recordIntent(.sample("bob-done", account: "bob"), at: T.at(10))
            for key in ["old-done", "old-done-2", "new-done", "bob-done"] {
                _ = try await tx.markDone(key: key, remoteID: nil, at: T.at(1_001))
            }
            _ = try await tx.markFailed(key: "old-failed", reason: "refused", retryAt: nil, at: T.at(20))
            try await tx.recordDedup(
                DedupRecord(
                    account: "alice", kind: .comment, target: "p1", value: "h", recordedAt: T.at(10),
                    journalKey: "old-done"))
            _ = try await tx.recordChallenge(
                StoredChallenge(
                    code: "c1", account: "alice", text: "t", expiresAt: nil, contentType: "comment",
                    contentID: "x", journalKey: "old-done-2", createdAt: T.at(10)))
        }
        struct Rollback: Error {}
        await #expect(throws: Rollback.self) {
            try await store.transaction { tx in
                _ = try await tx.pruneJournal(account: "alice", doneCreatedBefore: T.at(500))
                throw Rollback()
            }
        }
        let (removed, again, left, fact, challenge) = try await store.transaction { tx in
            let keptAll = try await tx.journalEntries(account: "alice", states: Set(JournalState.allCases)).count
            #expect(keptAll == 5)
            let removed = try await tx.pruneJournal(account: "alice", doneCreatedBefore: T.at(500))
            let again = try await tx.pruneJournal(account: "alice", doneCreatedBefore: T.at(500))
            let left = try await tx.journalEntries(account: "alice", states: Set(JournalState.allCases)).map(\.key)
                .sorted()
            let fact = try await tx.dedupRecords(account: "alice", kind: .comment, target: "p1").first
            return (removed, again, left, fact, try await tx.challenge(code: "c1"))
        }
        #expect(removed == 2)
        #expect(again == 0)
        #expect(left == ["new-done", "old-failed", "old-intent"])
        #expect(try await store.read { try await $0.journalEntry(key: "bob-done") }?.state == .done)
        #expect(fact?.value == "h")
        #expect(fact?.journalKey == nil)
        #expect(challenge?.journalKey == nil)
        #expect(challenge?.status == .open)
    }
}
