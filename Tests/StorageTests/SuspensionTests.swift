import Foundation
import MoltipassTesting
import Synchronization
import Testing

@testable import Storage

/// Bodies that suspend between their calls (the async `StateStore`): a transaction stays
/// atomic and keeps other transactions out while it waits; a read keeps one snapshot. On every
/// store (SQLite files, PostgreSQL schemas, the memory store where it applies).
@Suite struct SuspensionTests {
    /// A transaction suspended half-way keeps the write connection: a second transaction
    /// started meanwhile waits at the gate (its body has not run when the first resumes), then
    /// runs after the first commits and sees both of its writes; all three writes reach the database.
    @Test(arguments: StoreBackend.durable)
    func suspendedTransactionMakesTheNextWait(backend: StoreBackend) async throws {
        try await backend.withState { state in
            let store = try await state.open()
            let (inside, entered) = AsyncStream<Void>.makeStream()
            let (resume, resumed) = AsyncStream<Void>.makeStream()
            let secondRan = Flag()
            let first = Task {
                try await store.transaction { tx in
                    _ = try await tx.recordIntent(.sample("k1"), at: T.t0)
                    entered.yield()
                    for await _ in resume { break }
                    let secondRanMeanwhile = secondRan.value
                    _ = try await tx.recordIntent(.sample("k2"), at: T.at(1))
                    return secondRanMeanwhile
                }
            }
            for await _ in inside { break }
            let second = Task {
                try await store.transaction { tx in
                    secondRan.set()
                    let seen = [try await tx.journalEntry(key: "k1"), try await tx.journalEntry(key: "k2")]
                    _ = try await tx.recordIntent(.sample("k3"), at: T.at(2))
                    return seen.map { $0?.key }
                }
            }
            // Queued at the gate, or (were there no gate) already running.
            try await waitUntil { TestState.writersWaiting(store) == 1 || secondRan.value }
            resumed.yield()
            #expect(try await first.value == false)
            #expect(try await second.value == ["k1", "k2"])
            try await state.close(store)
            let reopened = try await state.open()
            let keys = try await reopened.read { reader in
                try await reader.journalEntries(account: "alice", states: [.intent]).map(\.key)
            }
            #expect(keys == ["k1", "k2", "k3"])
        }
    }

    /// A transaction that throws after a suspension, while another transaction waits:
    /// the first one's writes are all rolled back, the waiting one's (run after, never inside
    /// the first's transaction) are committed.
    @Test(arguments: StoreBackend.durable)
    func waiterSurvivesRollbackOfSuspendedTransaction(backend: StoreBackend) async throws {
        try await backend.withState { state in
            let store = try await state.open()
            let (inside, entered) = AsyncStream<Void>.makeStream()
            let (resume, resumed) = AsyncStream<Void>.makeStream()
            let first = Task {
                try await store.transaction { tx in
                    _ = try await tx.recordIntent(.sample("k1"), at: T.t0)
                    entered.yield()
                    for await _ in resume { break }
                    _ = try await tx.recordIntent(.sample("k2"), at: T.at(1))
                    throw Boom()
                }
            }
            for await _ in inside { break }
            let secondRan = Flag()
            let second = Task {
                try await store.transaction { tx in
                    secondRan.set()
                    let sawFirst = try await tx.journalEntry(key: "k1") != nil
                    _ = try await tx.recordIntent(.sample("k3"), at: T.at(2))
                    return sawFirst
                }
            }
            try await waitUntil { TestState.writersWaiting(store) == 1 || secondRan.value }
            resumed.yield()
            await #expect(throws: Boom.self) { try await first.value }
            #expect(try await second.value == false)
            try await state.close(store)
            let reopened = try await state.open()
            let keys = try await reopened.read { reader in
                try await reader.journalEntries(account: "alice", states: Set(JournalState.allCases)).map(\.key)
            }
            #expect(keys == ["k3"])
        }
    }

    /// A transaction that throws after suspending (a yield and a sleep between its writes)
    /// leaves nothing of what it wrote, in every store; a new connection to the database says so.
    @Test(arguments: StoreBackend.all)
    func throwAfterSuspensionRollsBack(backend: StoreBackend) async throws {
        try await backend.withState { state in
            let store = try await state.open()
            _ = try await store.recordIntent(.sample("k0"), at: T.t0)
            await #expect(throws: Boom.self) {
                try await store.transaction { tx in
                    _ = try await tx.markSent(key: "k0", at: T.at(1))
                    await Task.yield()
                    _ = try await tx.recordIntent(.sample("k1"), at: T.at(1))
                    try await Task.sleep(for: .milliseconds(20))
                    try await tx.recordDedup(
                        DedupRecord(account: "alice", kind: .comment, target: "p1", value: "h", recordedAt: T.t0))
                    try await tx.setPause(
                        AccountPause(account: "alice", kind: .manual, until: nil, reason: "r", createdAt: T.t0))
                    throw Boom()
                }
            }
            let after = try await Self.summary(of: store)
            #expect(after == Summary(k0: .intent, k1: nil, facts: 0, pauses: 0))
            if backend != .memory {
                try await state.close(store)
                #expect(try await Self.summary(of: try await state.open()) == after)
            }
        }
    }

    /// A transaction whose task is cancelled while it is suspended is rolled back at once
    /// (SQLite's rollback runs although GRDB starts no access for a cancelled task; PostgreSQL's
    /// in a task of its own): another connection can take the write lock (SQLite) or write the
    /// same row (PostgreSQL) right away, and the store stays usable: the next transaction commits.
    @Test(arguments: StoreBackend.all)
    func cancelledWhileSuspendedRollsBack(backend: StoreBackend) async throws {
        try await backend.withState { state in
            let store = try await state.open()
            let (inside, entered) = AsyncStream<Void>.makeStream()
            let task = Task {
                try await store.transaction { tx in
                    _ = try await tx.recordIntent(.sample("k1"), at: T.t0)
                    entered.yield()
                    try await Task.sleep(for: .seconds(60))
                    _ = try await tx.recordIntent(.sample("k2"), at: T.t0)
                }
            }
            for await _ in inside { break }
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(try await store.journalEntry(key: "k1") == nil)
            switch backend {
            case .sqlite:
                let other = try await SQLiteStateStore.open(path: state.path!, busyTimeout: 0.2)
                _ = try await other.recordIntent(.sample("k4"), at: T.at(1))
                try other.close()
            case .postgres:
                // k1's row would still be locked by an open transaction (then `.busy` after 5 s).
                let other = try await state.open()
                let start = ContinuousClock.now
                _ = try await other.recordIntent(.sample("k1"), at: T.at(1))
                // Under the lock timeout: a row still locked would be waited for 5 s, then `.busy`.
                #expect(ContinuousClock.now - start < .seconds(5))
                _ = try await other.transaction { try await $0.withdrawUnsent(key: "k1") }
            case .memory: break
            }
            _ = try await store.recordIntent(.sample("k3"), at: T.at(1))
            #expect(try await store.journalEntry(key: "k3")?.state == .intent)
        }
    }

    /// A read that suspends between its queries sees one snapshot: a
    /// transaction of the same store commits while the read waits (reads do not hold writes
    /// up), and the read's later queries still see the state from before it; the next read
    /// sees the commit.
    @Test(arguments: StoreBackend.durable)
    func readKeepsOneSnapshotAcrossSuspension(backend: StoreBackend) async throws {
        try await backend.withState { state in
            let store = try await state.open()
            _ = try await store.recordIntent(.sample("k1"), at: T.t0)
            let (inside, entered) = AsyncStream<Void>.makeStream()
            let (resume, resumed) = AsyncStream<Void>.makeStream()
            let read = Task {
                try await store.read { reader in
                    let before = try await reader.journalEntry(key: "k1")?.state
                    entered.yield()
                    for await _ in resume { break }
                    let after = try await reader.journalEntry(key: "k1")?.state
                    let added = try await reader.journalEntry(key: "k2")
                    let pending = try await reader.pendingJournalEntries(account: "alice").map(\.key)
                    return [before, after, added?.state].map { $0?.rawValue ?? "-" } + pending
                }
            }
            for await _ in inside { break }
            try await store.transaction { tx in
                _ = try await tx.markSent(key: "k1", at: T.at(1))
                _ = try await tx.recordIntent(.sample("k2"), at: T.at(1))
            }
            resumed.yield()
            #expect(try await read.value == ["intent", "intent", "-", "k1"])
            let now = try await store.read { reader in
                [try await reader.journalEntry(key: "k1")?.state, try await reader.journalEntry(key: "k2")?.state]
            }
            #expect(now == [.sent, .intent])
        }
    }

    // MARK: Helpers

    /// A flag tasks share.
    final class Flag: Sendable {
        private let state = Mutex(false)
        var value: Bool { state.withLock { $0 } }
        func set() { state.withLock { $0 = true } }
    }

    struct Summary: Equatable {
        var k0: JournalState?
        var k1: JournalState?
        var facts: Int
        var pauses: Int
    }

    static func summary(of store: any StateStore) async throws -> Summary {
        try await store.read { reader in
            Summary(
                k0: try await reader.journalEntry(key: "k0")?.state,
                k1: try await reader.journalEntry(key: "k1")?.state,
                facts: try await reader.dedupRecords(account: "alice", kind: .comment, target: "p1").count,
                pauses: try await reader.pauses(account: "alice").count)
        }
    }

    /// Polls `condition` until it holds (at most 10 s).
    func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            if ContinuousClock.now > deadline { throw Boom() }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
