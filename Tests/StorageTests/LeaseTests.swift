import Foundation
import MoltipassTesting
import Synchronization
import Testing

@testable import Storage

@Suite struct LeaseTests {
    /// A free lease is acquired; another holder then sees who holds it and until when.
    @Test(arguments: StoreBackend.durable)
    func acquireAndHeldByOther(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let mine = try await store.acquireLease(account: "alice", holder: "A", now: T.t0, ttl: 60)
            let theirs = try await store.acquireLease(account: "alice", holder: "B", now: T.at(59), ttl: 60)
            let other = try await store.acquireLease(account: "bob", holder: "B", now: T.at(59), ttl: 60)
            #expect(mine == .acquired(Lease(account: "alice", holder: "A", acquiredAt: T.t0, expiresAt: T.at(60))))
            #expect(theirs == .heldBy(holder: "A", until: T.at(60)))
            #expect(other.lease?.holder == "B")
        }
    }

    /// An expired lease is taken over (at exactly its expiry too); a live one is not.
    @Test(arguments: StoreBackend.durable)
    func expiryTakeover(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            _ = try await store.acquireLease(account: "alice", holder: "A", now: T.t0, ttl: 60)
            let early = try await store.acquireLease(account: "alice", holder: "B", now: T.at(59.999), ttl: 60)
            let taken = try await store.acquireLease(account: "alice", holder: "B", now: T.at(60), ttl: 60)
            let lost = try await store.renewLease(account: "alice", holder: "A", token: 1, now: T.at(61), ttl: 60)
            #expect(early == .heldBy(holder: "A", until: T.at(60)))
            #expect(
                taken
                    == .acquired(
                        Lease(account: "alice", holder: "B", token: 2, acquiredAt: T.at(60), expiresAt: T.at(120)))
            )
            #expect(lost == nil)
        }
    }

    /// Re-acquiring one's own live lease extends it and keeps the first acquisition time.
    @Test(arguments: StoreBackend.durable)
    func reacquireOwn(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            _ = try await store.acquireLease(account: "alice", holder: "A", now: T.t0, ttl: 60)
            let again = try await store.acquireLease(account: "alice", holder: "A", now: T.at(30), ttl: 60)
            #expect(again == .acquired(Lease(account: "alice", holder: "A", acquiredAt: T.t0, expiresAt: T.at(90))))
        }
    }

    /// Renewing extends the holder's lease; holdsLease follows the expiry.
    @Test(arguments: StoreBackend.durable)
    func renew(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            _ = try await store.acquireLease(account: "alice", holder: "A", now: T.t0, ttl: 60)
            let renewed = try await store.renewLease(account: "alice", holder: "A", token: 1, now: T.at(50), ttl: 60)
            let byOther = try await store.renewLease(account: "alice", holder: "B", token: 1, now: T.at(50), ttl: 60)
            let (holdsAt100, holdsAt110, otherHolds) = try await store.read {
                (
                    try await $0.holdsLease(account: "alice", holder: "A", now: T.at(100)),
                    try await $0.holdsLease(account: "alice", holder: "A", now: T.at(110)),
                    try await $0.holdsLease(account: "alice", holder: "B", now: T.at(100))
                )
            }
            #expect(renewed == Lease(account: "alice", holder: "A", token: 1, acquiredAt: T.t0, expiresAt: T.at(110)))
            #expect(byOther == nil)
            #expect(holdsAt100 && !holdsAt110 && !otherHolds)
        }
    }

    /// Releasing frees the lease for anyone at once; only the holder can release it.
    @Test(arguments: StoreBackend.durable)
    func release(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            _ = try await store.acquireLease(account: "alice", holder: "A", now: T.t0, ttl: 60)
            let byOther = try await store.releaseLease(account: "alice", holder: "B")
            let byHolder = try await store.releaseLease(account: "alice", holder: "A")
            let renewAfter = try await store.renewLease(account: "alice", holder: "A", token: 1, now: T.at(1), ttl: 60)
            let next = try await store.acquireLease(account: "alice", holder: "B", now: T.at(1), ttl: 60)
            #expect(!byOther && byHolder)
            #expect(renewAfter == nil)
            #expect(next.lease?.holder == "B")
        }
    }

    /// The fencing token: 1 for a new lease, kept while one holder extends it, one more at each
    /// change of holder (a takeover, an acquisition after a release), never reused; a renewal
    /// under an old token fails even for the same holder (it lost the lease and took it again).
    @Test(arguments: StoreBackend.durable)
    func fencingTokens(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let first = try await store.acquireLease(account: "alice", holder: "A", now: T.t0, ttl: 60).lease
            let extended = try await store.acquireLease(account: "alice", holder: "A", now: T.at(30), ttl: 60).lease
            let takenOver = try await store.acquireLease(account: "alice", holder: "B", now: T.at(90), ttl: 60).lease
            _ = try await store.releaseLease(account: "alice", holder: "B")
            let released = try await store.read { try await $0.lease(account: "alice") }
            let back = try await store.acquireLease(account: "alice", holder: "A", now: T.at(100), ttl: 60).lease
            let oldToken = try await store.renewLease(account: "alice", holder: "A", token: 1, now: T.at(101), ttl: 60)
            let newToken = try await store.renewLease(account: "alice", holder: "A", token: 3, now: T.at(101), ttl: 60)
            let other = try await store.acquireLease(account: "bob", holder: "A", now: T.at(100), ttl: 60).lease
            let all = try await store.read { try await $0.leases() }
            #expect([first?.token, extended?.token, takenOver?.token, back?.token] == [1, 1, 2, 3])
            #expect(released == nil, "a released lease is nobody's")
            #expect(oldToken == nil)
            #expect(newToken?.expiresAt == T.at(161))
            #expect(all.map(\.account) == ["alice", "bob"] && all.map(\.token) == [3, 1] && other?.holder == "A")
        }
    }

    /// Twenty stores on one new file (twenty GRDB pools, each with its own SQLite write
    /// connection, opened at once so their migrations race too), twenty threads released
    /// together, one `now`: exactly one acquires, the nineteen others see that winner.
    ///
    /// Separate connections in one process stand in for separate processes: SQLite serialises
    /// their write transactions the same way (the cross-process case is the sqlite3 test below
    /// and the engine's overlap test through the binary).
    @Test func twentyRacersOneWinner() async throws {
        let file = try StoreFile()
        defer { file.remove() }
        let stores = try await withThrowingTaskGroup(of: SQLiteStateStore.self) { group in
            for _ in 0..<20 { group.addTask { try await file.open() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let barrier = Barrier(parties: stores.count)
        let results = try await withThrowingTaskGroup(of: (String, LeaseResult).self) { group in
            for (index, store) in stores.enumerated() {
                group.addTask {
                    try await offloaded {
                        barrier.arriveAndWait()
                        let holder = "holder-\(index)"
                        return (
                            holder,
                            try store.blockingTransaction {
                                try $0.acquireLease(account: "alice", holder: holder, now: T.t0, ttl: 30)
                            }
                        )
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let winners = results.filter { $0.1.lease != nil }.map(\.0)
        #expect(winners.count == 1)
        let winner = try #require(winners.first)
        for (holder, result) in results where holder != winner {
            #expect(result == .heldBy(holder: winner, until: T.at(30)))
        }
    }

    /// A lease written by another process (the sqlite3 shell, holding its write transaction
    /// open for a second) is seen as held: the store waits out the lock, then reports the holder.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")))
    func anotherProcessHolds() async throws {
        let file = try StoreFile()
        defer { file.remove() }
        let store = try await file.open()
        let marker = file.directory.file("shell-holds-the-lock").path
        let expires = T.at(600).timeIntervalSince1970
        let shell = Task {
            try await ProcessRunner.runSystem(
                "/usr/bin/sqlite3",
                [
                    "-bail", "-cmd", ".timeout 5000", file.path,
                    "BEGIN IMMEDIATE; INSERT INTO leases VALUES ('alice', 'shell', 0, \(expires), 1);",
                    ".shell touch \(marker) && sleep 1", "COMMIT;",
                ])
        }
        var waited = 0
        while !FileManager.default.fileExists(atPath: marker) && waited < 500 {
            try await Task.sleep(for: .milliseconds(20))
            waited += 1
        }
        let result = try await store.acquireLease(account: "alice", holder: "engine", now: T.t0, ttl: 60)
        let finished = try await shell.value
        #expect(FileManager.default.fileExists(atPath: marker))
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(result == .heldBy(holder: "shell", until: T.at(600)))
    }
}

/// Releases its parties together once all have arrived (spinning: the waits are microseconds).
final class Barrier: Sendable {
    private let arrived = Atomic<Int>(0)
    private let parties: Int

    init(parties: Int) { self.parties = parties }

    func arriveAndWait() {
        arrived.add(1, ordering: .sequentiallyConsistent)
        while arrived.load(ordering: .sequentiallyConsistent) < parties { sched_yield() }
    }
}
