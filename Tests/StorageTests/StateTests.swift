import Foundation
import MoltipassTesting
import Testing

@testable import Storage

@Suite struct StateTests {
    /// Limiter blobs and hints round-trip per account and key, and are replaced, not added.
    @Test(arguments: StoreBackend.durable)
    func limiterLedger(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let hint = LimitHint(
                account: "alice", limitClass: "post", notBefore: T.at(1_800), source: "retry_after_minutes",
                detail: "30 min", recordedAt: T.t0)
            try await store.transaction { tx in
                try await tx.setLimiterState(Data([1]), account: "alice", key: "limiter", at: T.t0)
                try await tx.setLimiterState(Data([2]), account: "alice", key: "limiter", at: T.at(1))
                try await tx.setLimiterState(Data([3]), account: "bob", key: "limiter", at: T.at(1))
                try await tx.setLimitHint(hint)
                var later = hint
                later.limitClass = "comment"
                later.notBefore = T.at(20)
                try await tx.setLimitHint(later)
                try await tx.removeLimitHint(account: "alice", limitClass: "comment")
            }
            let (alice, bob, missing, hints) = try await store.read { reader in
                (
                    try await reader.limiterState(account: "alice", key: "limiter"),
                    try await reader.limiterState(account: "bob", key: "limiter"),
                    try await reader.limiterState(account: "carol", key: "limiter"),
                    try await reader.limitHints(account: "alice")
                )
            }
            #expect(alice == Data([2]) && bob == Data([3]) && missing == nil)
            #expect(hints == [hint])
        }
    }

    /// Schedule cursors and queue positions are kept per recipe and job / queue file.
    @Test(arguments: StoreBackend.durable)
    func cursorsAndQueues(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            try await store.transaction { tx in
                try await tx.setScheduleCursor(recipe: "r", job: "a", lastFired: T.at(10), at: T.at(11))
                try await tx.setScheduleCursor(recipe: "r", job: "a", lastFired: T.at(20), at: T.at(21))
                try await tx.setQueuePosition(
                    QueuePosition(next: 3, lastItem: "h2", updatedAt: T.at(21)), recipe: "r", queue: "q.txt")
            }
            let (cursor, other, position, none) = try await store.read { reader in
                (
                    try await reader.scheduleCursor(recipe: "r", job: "a"),
                    try await reader.scheduleCursor(recipe: "r", job: "b"),
                    try await reader.queuePosition(recipe: "r", queue: "q.txt"),
                    try await reader.queuePosition(recipe: "s", queue: "q.txt")
                )
            }
            #expect(cursor == T.at(20) && other == nil && none == nil)
            #expect(position == QueuePosition(next: 3, lastItem: "h2", updatedAt: T.at(21)))
        }
    }

    /// A vote keeps one direction per target; comments keep one fact per content hash; removal forgets them.
    @Test(arguments: StoreBackend.durable)
    func dedupFacts(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let (direction, hashes, follows, afterUnfollow) = try await store.transaction { tx in
                try await tx.recordDedup(
                    DedupRecord(account: "a", kind: .postVote, target: "p1", value: "up", recordedAt: T.t0))
                try await tx.recordDedup(
                    DedupRecord(account: "a", kind: .postVote, target: "p1", value: "down", recordedAt: T.at(1)))
                try await tx.recordDedup(
                    DedupRecord(account: "a", kind: .comment, target: "p1", value: "h1", recordedAt: T.t0))
                try await tx.recordDedup(
                    DedupRecord(account: "a", kind: .comment, target: "p1", value: "h2", recordedAt: T.at(1)))
                try await tx.recordDedup(DedupRecord(account: "a", kind: .follow, target: "bob", recordedAt: T.t0))
                let follows = try await tx.hasDedupRecord(account: "a", kind: .follow, target: "bob")
                try await tx.removeDedup(account: "a", kind: .follow, target: "bob")
                return (
                    try await tx.vote(account: "a", kind: .postVote, target: "p1"),
                    try await tx.dedupRecords(account: "a", kind: .comment, target: "p1").map(\.value), follows,
                    try await tx.hasDedupRecord(account: "a", kind: .follow, target: "bob")
                )
            }
            #expect(direction == "down")
            #expect(hashes == ["h1", "h2"])
            #expect(follows && !afterUnfollow)
        }
    }

    /// Pauses are one per kind, active until their time (or forever), and can be lifted.
    @Test(arguments: StoreBackend.durable)
    func pauses(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let (active, later, all) = try await store.transaction { tx in
                try await tx.setPause(
                    AccountPause(account: "a", kind: .suspended, until: T.at(100), reason: "403", createdAt: T.t0))
                try await tx.setPause(
                    AccountPause(account: "a", kind: .authBreaker, until: nil, reason: "401×3", createdAt: T.t0))
                try await tx.setPause(
                    AccountPause(account: "a", kind: .manual, until: T.at(5), reason: "op", createdAt: T.t0))
                try await tx.clearPause(account: "a", kind: .manual)
                return (
                    try await tx.activePauses(account: "a", at: T.at(50)).map(\.kind),
                    try await tx.activePauses(account: "a", at: T.at(100)).map(\.kind),
                    try await tx.pauses(account: "a").count
                )
            }
            #expect(active == [.authBreaker, .suspended])
            #expect(later == [.authBreaker])
            #expect(all == 2)
        }
    }

    /// Challenges are recorded once per code, count attempts, and are listed newest first by status.
    @Test(arguments: StoreBackend.durable)
    func challenges(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let (first, again, attempted, solved, open, recent) = try await store.transaction { tx in
                _ = try await tx.recordIntent(.sample("k1"), at: T.t0)
                let challenge = StoredChallenge(
                    code: "moltbook_verify_1", account: "a", text: "lobster math", expiresAt: T.at(300),
                    contentType: "comment", contentID: "c1", journalKey: "k1", createdAt: T.t0,
                    instructions: "respond with ONLY the number as a whole number")
                let first = try await tx.recordChallenge(challenge)
                var changed = challenge
                changed.text = "other"
                let again = try await tx.recordChallenge(changed)
                let attempted = try await tx.recordChallengeAttempt(code: challenge.code, at: T.at(5))
                var second = challenge
                second.code = "moltbook_verify_2"
                second.createdAt = T.at(10)
                _ = try await tx.recordChallenge(second)
                let solved = try await tx.resolveChallenge(code: challenge.code, status: .solved, at: T.at(6))
                return (
                    first, again, attempted, solved,
                    try await tx.challenges(account: "a", status: .open, limit: 10).map(\.code),
                    try await tx.challenges(account: "a", status: nil, limit: 10).map(\.code)
                )
            }
            #expect(first.status == .open && first.attempts == 0 && first.journalKey == "k1")
            #expect(first.instructions == "respond with ONLY the number as a whole number")
            #expect(again == first)
            #expect(attempted.attempts == 1 && attempted.updatedAt == T.at(5))
            #expect(solved.status == .solved)
            #expect(open == ["moltbook_verify_2"])
            #expect(recent == ["moltbook_verify_2", "moltbook_verify_1"])
        }
    }

    /// Heartbeats are one per holder, replaced on each tick, removable.
    @Test(arguments: StoreBackend.durable)
    func heartbeats(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            try await store.recordHeartbeat(
                Heartbeat(holder: "h1", startedAt: T.t0, lastTick: T.at(1), detail: "daemon"))
            try await store.recordHeartbeat(
                Heartbeat(holder: "h1", startedAt: T.t0, lastTick: T.at(9), detail: "daemon"))
            try await store.recordHeartbeat(Heartbeat(holder: "h2", startedAt: T.t0, lastTick: T.at(2)))
            try await store.transaction { try await $0.removeHeartbeat(holder: "h2") }
            let beats = try await store.read { try await $0.heartbeats() }
            #expect(beats == [Heartbeat(holder: "h1", startedAt: T.t0, lastTick: T.at(9), detail: "daemon")])
        }
    }

    /// A transaction whose closure throws leaves nothing behind and rethrows the closure's error.
    @Test(arguments: StoreBackend.durable)
    func throwingTransactionRollsBack(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            await #expect(throws: Boom.self) {
                try await store.transaction { tx in
                    _ = try await tx.recordIntent(.sample(), at: T.t0)
                    try await tx.setScheduleCursor(recipe: "r", job: "a", lastFired: T.t0, at: T.t0)
                    _ = try await tx.acquireLease(account: "alice", holder: "A", now: T.t0, ttl: 60)
                    throw Boom()
                }
            }
            let (entry, cursor, accounts) = try await store.read {
                (
                    try await $0.journalEntry(key: "k1"), try await $0.scheduleCursor(recipe: "r", job: "a"),
                    try await $0.knownAccounts()
                )
            }
            #expect(entry == nil && cursor == nil && accounts.isEmpty)
        }
    }

    /// knownAccounts lists every account any table mentions, once, sorted.
    @Test(arguments: StoreBackend.durable)
    func knownAccounts(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            try await store.transaction { tx in
                _ = try await tx.recordIntent(.sample(account: "carol"), at: T.t0)
                _ = try await tx.acquireLease(account: "alice", holder: "A", now: T.t0, ttl: 1)
                try await tx.setLimiterState(Data(), account: "bob", key: "x", at: T.t0)
                try await tx.setPause(
                    AccountPause(account: "alice", kind: .manual, until: nil, reason: "", createdAt: T.t0))
            }
            #expect(try await store.read { try await $0.knownAccounts() } == ["alice", "bob", "carol"])
        }
    }
}

extension StateTests {
    /// dedupTargets lists the targets with a fact of one kind, filtered by value when given.
    @Test(arguments: StoreBackend.durable)
    func dedupTargetsInBulk(backend: StoreBackend) async throws {
        try await backend.withStore { store in
            let (up, any, comments) = try await store.transaction { tx in
                for (target, value) in [("p1", "up"), ("p2", "down"), ("p3", "up")] {
                    try await tx.recordDedup(
                        DedupRecord(account: "a", kind: .postVote, target: target, value: value, recordedAt: T.t0))
                }
                try await tx.recordDedup(
                    DedupRecord(account: "a", kind: .comment, target: "p1", value: "h1", recordedAt: T.t0))
                try await tx.recordDedup(
                    DedupRecord(account: "a", kind: .comment, target: "p1", value: "h2", recordedAt: T.t0))
                return (
                    try await tx.dedupTargets(account: "a", kind: .postVote, value: "up"),
                    try await tx.dedupTargets(account: "a", kind: .postVote, value: nil),
                    try await tx.dedupTargets(account: "a", kind: .comment, value: nil)
                )
            }
            #expect(up == ["p1", "p3"])
            #expect(any == ["p1", "p2", "p3"])
            #expect(comments == ["p1"])
        }
    }
}

extension StateTests {
    /// The answer kinds (issue 22) hold one fact per target in every store: a trigger answered
    /// again keeps one record (its first journal key), kinds and accounts stay apart, removal
    /// forgets the one target; SQLite and PostgreSQL hold them across reopening, SQLite in its
    /// memory copy too.
    @Test(arguments: StoreBackend.all)
    func answerFacts(backend: StoreBackend) async throws {
        try await backend.withState { state in
            let first = try await state.open()
            try await first.transaction { tx in
                _ = try await tx.recordIntent(.sample("k1", account: "a"), at: T.t0)
                try await tx.recordDedup(
                    DedupRecord(account: "a", kind: .reply, target: "c1", recordedAt: T.at(1), journalKey: "k1"))
                try await tx.recordDedup(DedupRecord(account: "a", kind: .reply, target: "c1", recordedAt: T.at(2)))
                try await tx.recordDedup(
                    DedupRecord(account: "a", kind: .reply, target: "post:p1", recordedAt: T.at(2)))
                try await tx.recordDedup(DedupRecord(account: "a", kind: .dm, target: "c1", recordedAt: T.at(3)))
                try await tx.recordDedup(DedupRecord(account: "b", kind: .dm, target: "m1", recordedAt: T.at(3)))
                try await tx.recordDedup(
                    DedupRecord(account: "a", kind: .dmApprove, target: "conv1", recordedAt: T.at(4)))
                try await tx.recordDedup(
                    DedupRecord(account: "a", kind: .dmApprove, target: "conv2", recordedAt: T.at(4)))
                try await tx.removeDedup(account: "a", kind: .dmApprove, target: "conv2")
            }
            #expect(DedupKind.reply.isSingleValued && DedupKind.dm.isSingleValued && DedupKind.dmApprove.isSingleValued)
            try await state.close(first)
            let reopened = try await state.open()
            var stores = [reopened]
            if let sqlite = reopened as? SQLiteStateStore { stores.append(try await sqlite.memoryCopy()) }
            for store in stores {
                let (answered, replies, dms, other, approved) = try await store.read { reader in
                    (
                        try await reader.dedupRecords(account: "a", kind: .reply, target: "c1"),
                        try await reader.dedupTargets(account: "a", kind: .reply, value: ""),
                        try await reader.dedupTargets(account: "a", kind: .dm, value: nil),
                        try await reader.dedupTargets(account: "b", kind: .dm, value: nil),
                        try await reader.dedupTargets(account: "a", kind: .dmApprove, value: nil)
                    )
                }
                #expect(answered.map(\.journalKey) == ["k1"])
                #expect(answered.map(\.recordedAt) == [T.at(2)])
                #expect(replies == ["c1", "post:p1"])
                #expect(dms == ["c1"] && other == ["m1"])
                #expect(approved == ["conv1"])
            }
        }
    }
}
