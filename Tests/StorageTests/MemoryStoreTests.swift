import Foundation
import MoltbookSandbox
import MoltipassTesting
import Testing

@testable import Storage

/// `MemoryStateStore` (plan's store) answers exactly as `SQLiteStateStore` does: the same
/// seeded random operations go to both, and every return value, every error code and, after
/// each operation, every query over the whole state must agree.
@Suite struct MemoryStoreTests {
    /// Thousands of random operations (journal transitions, facts, pauses, challenges, leases,
    /// pruning, transactions that throw half-way) leave both stores indistinguishable.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func agreesWithSQLite(seed: UInt64) async throws {
        let sqlite = try SQLiteStateStore.inMemory()
        let memory = MemoryStateStore()
        var random = SeededRandom(seed: seed)
        var mismatches: [String] = []
        var outcomes: Set<String> = []
        for step in 0..<400 {
            let operations = (0..<(random.index(3) + 1)).map { _ in Operation.random(&random, step: step) }
            let failAfter = random.index(6) == 0 ? random.index(operations.count) : nil
            let expected = await Self.apply(operations, failAfter: failAfter, to: sqlite)
            let actual = await Self.apply(operations, failAfter: failAfter, to: memory)
            if expected != actual { mismatches.append("step \(step) \(operations): \(expected) ≠ \(actual)") }
            if expected.hasPrefix("error") { outcomes.insert(expected) }
            let (before, after) = (try await Self.dump(sqlite, now: step), try await Self.dump(memory, now: step))
            if before != after {
                let differing = zip(before.split(separator: "\n"), after.split(separator: "\n")).filter { $0 != $1 }
                mismatches.append(
                    "state after step \(step) \(operations): "
                        + differing.map { "\n  sqlite: \($0)\n  memory: \($1)" }.joined())
            }
            if !mismatches.isEmpty { break }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        // The walk reached the refusals too: bad transitions, unknown keys, constraints, roll-backs.
        #expect(
            outcomes.isSuperset(of: ["error illegalTransition", "error notFound", "error database", "error Boom"]),
            "\(outcomes)")
    }

    /// `memoryCopy()` of a populated SQLite store holds every row: the two answer every query alike.
    @Test func memoryCopyHoldsEveryRow() async throws {
        let sqlite = try SQLiteStateStore.inMemory()
        var random = SeededRandom(seed: 9)
        for step in 0..<300 {
            _ = await Self.apply([Operation.random(&random, step: step)], failAfter: nil, to: sqlite)
        }
        let copy = try await sqlite.memoryCopy()
        #expect(try await Self.dump(copy, now: 300) == (try await Self.dump(sqlite, now: 300)))
        #expect(try await copy.read { try await $0.knownAccounts() }.isEmpty == false)
    }

    /// A transaction that throws leaves the memory store as it was and rethrows the error.
    @Test func throwingTransactionRollsBack() async throws {
        let store = MemoryStateStore()
        _ = try await store.recordIntent(.sample("k0"), at: T.t0)
        let before = try await Self.dump(store, now: 0)
        await #expect(throws: Boom.self) {
            try await store.transaction { tx in
                _ = try await tx.markSent(key: "k0", at: T.at(1))
                _ = try await tx.recordIntent(.sample("k1"), at: T.at(1))
                try await tx.recordDedup(
                    DedupRecord(account: "alice", kind: .comment, target: "p1", value: "h", recordedAt: T.t0))
                try await tx.setScheduleCursor(recipe: "r", job: "a", lastFired: T.t0, at: T.t0)
                _ = try await tx.acquireLease(account: "alice", holder: "A", now: T.t0, ttl: 60)
                throw Boom()
            }
        }
        #expect(try await Self.dump(store, now: 0) == before)
    }

    /// journalTargets lists each action's distinct targets over entries in every state, only
    /// for the actions asked, and forgets a target when its last entry is pruned (only done
    /// entries are: the finally failed vote keeps its target).
    @Test(arguments: StoreBackend.all)
    func journalTargets(backend: StoreBackend) async throws {
        try await backend.withStore { store in try await Self.journalTargets(store) }
    }

    static func journalTargets(_ store: any StateStore) async throws {
        let (targets, afterPrune) = try await store.transaction { tx in
            for (key, action, target) in [
                ("k1", "comment", "p1"), ("k2", "comment", "p1"), ("k3", "comment", "p2"),
                ("k4", "upvote_post", "p3"), ("k5", "post", nil), ("k6", "follow", "bob"),
            ] as [(String, String, String?)] {
                var intent = JournalIntent.sample(key)
                intent.action = action
                intent.target = target
                _ = try await tx.recordIntent(intent, at: T.t0)
            }
            _ = try await tx.recordIntent(.sample("other", account: "bob"), at: T.t0)
            _ = try await tx.markDone(key: "k3", remoteID: nil, at: T.at(1))
            _ = try await tx.markFailed(key: "k4", reason: "gone", retryAt: nil, at: T.at(1))
            let actions: Set<String> = ["comment", "upvote_post", "post", "downvote_post"]
            let targets = try await tx.journalTargets(account: "alice", actions: actions)
            _ = try await tx.pruneJournal(account: "alice", doneCreatedBefore: T.at(5))
            return (targets, try await tx.journalTargets(account: "alice", actions: actions))
        }
        #expect(targets == ["comment": ["p1", "p2"], "upvote_post": ["p3"]])
        #expect(afterPrune == ["comment": ["p1"], "upvote_post": ["p3"]])
    }

    // MARK: Driving both stores

    /// Runs `operations` in one transaction; with `failAfter`, throws after that many. The
    /// outcome as text: each result, or the error code that ended it.
    static func apply(_ operations: [Operation], failAfter: Int?, to store: any StateStore) async -> String {
        do {
            return try await store.transaction { tx in
                var results: [String] = []
                for (index, operation) in operations.enumerated() {
                    if index == failAfter { throw Boom() }
                    results.append(try await operation.apply(tx))
                }
                return results.joined(separator: "; ")
            }
        } catch let error as StorageError {
            return "error \(error.code)"
        } catch {
            return "error \(type(of: error))"
        }
    }

    /// Every query over the small domain the random operations use, as text.
    static func dump(_ store: any StateStore, now step: Int) async throws -> String {
        try await store.read { reader in
            var lines: [String] = []
            let now = T.at(Double(step))
            for account in Domain.accounts {
                var states: [Data?] = []
                for key in Domain.keys { states.append(try await reader.limiterState(account: account, key: key)) }
                lines.append("limiter \(states)")
                lines.append("hints \(try await reader.limitHints(account: account))")
                lines.append(
                    "journal \(try await reader.journalEntries(account: account, states: Set(JournalState.allCases)))")
                lines.append("pending \(try await reader.pendingJournalEntries(account: account).map(\.key))")
                lines.append("uncertain \(try await reader.uncertainJournalEntries(account: account).map(\.key))")
                lines.append(
                    "failed+done \(try await reader.journalEntries(account: account, states: [.failed, .done]).map(\.key))"
                )
                let targets = try await reader.journalTargets(account: account, actions: Set(Domain.actions))
                lines.append("targets \(targets.mapValues { $0.sorted() }.sorted { $0.key < $1.key })")
                for kind in DedupKind.allCases {
                    for target in Domain.targets {
                        lines.append(
                            "dedup \(try await reader.dedupRecords(account: account, kind: kind, target: target))")
                    }
                    for value in [nil] + Domain.values {
                        let found = try await reader.dedupTargets(account: account, kind: kind, value: value).sorted()
                        lines.append("dedupTargets \(kind) \(value ?? "-") \(found)")
                    }
                }
                lines.append("pauses \(try await reader.pauses(account: account))")
                lines.append("active \(try await reader.activePauses(account: account, at: now).map(\.kind))")
                for status in [nil] + ChallengeStatus.allCases {
                    lines.append(
                        "challenges \(try await reader.challenges(account: account, status: status, limit: 3))")
                }
                lines.append("lease \(try await reader.lease(account: account).map { "\($0)" } ?? "-")")
                var holds: [Bool] = []
                for holder in Domain.holders {
                    holds.append(try await reader.holdsLease(account: account, holder: holder, now: now))
                }
                lines.append("holds \(holds)")
            }
            for key in Domain.journalKeys {
                lines.append("entry \(try await reader.journalEntry(key: key).map { "\($0)" } ?? "-")")
            }
            for code in Domain.codes {
                lines.append("challenge \(try await reader.challenge(code: code).map { "\($0)" } ?? "-")")
            }
            for recipe in Domain.keys {
                for job in Domain.keys {
                    lines.append(
                        "cursor \(try await reader.scheduleCursor(recipe: recipe, job: job).map { "\($0)" } ?? "-")")
                    lines.append(
                        "queue \(try await reader.queuePosition(recipe: recipe, queue: job).map { "\($0)" } ?? "-")")
                }
            }
            lines.append("heartbeats \(try await reader.heartbeats())")
            lines.append("accounts \(try await reader.knownAccounts())")
            return lines.joined(separator: "\n")
        }
    }
}

/// The small domain the random operations draw from, so they collide often.
enum Domain {
    static let accounts = ["alice", "bob", "carol"]
    static let keys = ["a", "b"]
    static let journalKeys = (0..<12).map { "k\($0)" }
    static let actions = ["comment", "upvote_post", "post", "follow"]
    static let targets = ["p1", "p2", "p3"]
    static let values = ["up", "down", "h1", "h2", ""]
    static let codes = (0..<5).map { "moltbook_verify_\($0)" }
    static let holders = ["A", "B"]
}

/// One random state-store operation.
enum Operation: CustomStringConvertible {
    case limiter(account: String, key: String, data: Data?)
    case hint(LimitHint, remove: Bool)
    case cursor(recipe: String, job: String, at: Date)
    case queue(recipe: String, queue: String, QueuePosition)
    case intent(JournalIntent, at: Date)
    case sent(String, at: Date)
    case done(String, remoteID: String?, at: Date)
    case failed(String, retryAt: Date?, at: Date)
    case uncertain(String, at: Date)
    case prune(account: String, before: Date)
    case dedup(DedupRecord)
    case removeDedup(account: String, kind: DedupKind, target: String)
    case pause(AccountPause, clear: Bool)
    case challenge(StoredChallenge)
    case attempt(String, at: Date)
    case resolve(String, ChallengeStatus, at: Date)
    case acquire(account: String, holder: String, at: Date, ttl: Double)
    case renew(account: String, holder: String, token: Int64, at: Date, ttl: Double)
    case release(account: String, holder: String)
    case heartbeat(Heartbeat, remove: Bool)

    var description: String { "\(Mirror(reflecting: self).children.first?.label ?? "?")" }

    static func random(_ random: inout SeededRandom, step: Int) -> Operation {
        func pick<T>(_ values: [T]) -> T { values[random.index(values.count)] }
        // Times move forward with the step, with fractional seconds and some ties.
        let base = Double(step)
        func time() -> Date { T.at(base + Double(random.index(4)) * 0.25 + (random.index(2) == 0 ? 0.1 : 0)) }
        let account = pick(Domain.accounts)
        switch random.index(20) {
        case 0:
            return .limiter(
                account: account, key: pick(Domain.keys), data: random.index(4) == 0 ? nil : Data([UInt8(step % 256)]))
        case 1:
            return .hint(
                LimitHint(
                    account: account, limitClass: pick(["post", "comment", "Write"]), notBefore: time(),
                    source: "s\(step)", detail: pick(["", "d"]), recordedAt: time()), remove: random.index(3) == 0)
        case 2: return .cursor(recipe: pick(Domain.keys), job: pick(Domain.keys), at: time())
        case 3:
            return .queue(
                recipe: pick(Domain.keys), queue: pick(Domain.keys),
                QueuePosition(next: random.index(5) - 1, lastItem: pick([nil, "t"]), updatedAt: time()))
        case 4, 5, 6:
            return .intent(
                JournalIntent(
                    key: pick(Domain.journalKeys), account: account, recipe: pick(Domain.keys), job: "j",
                    occurrence: time(), step: random.index(3), action: pick(Domain.actions),
                    target: random.index(5) == 0 ? nil : pick(Domain.targets), contentHash: "h\(step)",
                    payload: random.index(3) == 0 ? nil : Data("p\(step)".utf8),
                    notBefore: random.index(2) == 0 ? nil : time()), at: time())
        case 7, 8: return .sent(pick(Domain.journalKeys), at: time())
        case 9: return .done(pick(Domain.journalKeys), remoteID: pick([nil, "r\(step)"]), at: time())
        case 10: return .failed(pick(Domain.journalKeys), retryAt: random.index(2) == 0 ? nil : time(), at: time())
        case 11: return .uncertain(pick(Domain.journalKeys), at: time())
        case 12:
            return random.index(4) == 0
                ? .prune(account: account, before: time()) : .sent(pick(Domain.journalKeys), at: time())
        case 13:
            return .dedup(
                DedupRecord(
                    account: account, kind: pick(DedupKind.allCases), target: pick(Domain.targets),
                    value: pick(Domain.values), recordedAt: time(),
                    journalKey: random.index(3) == 0 ? nil : pick(Domain.journalKeys)))
        case 14: return .removeDedup(account: account, kind: pick(DedupKind.allCases), target: pick(Domain.targets))
        case 15:
            return .pause(
                AccountPause(
                    account: account, kind: pick(PauseKind.allCases), until: random.index(3) == 0 ? nil : time(),
                    reason: "r\(step)", createdAt: time()), clear: random.index(3) == 0)
        case 16:
            return .challenge(
                StoredChallenge(
                    code: pick(Domain.codes), account: account, text: "t\(step)",
                    expiresAt: random.index(2) == 0 ? nil : time(), contentType: "post",
                    contentID: pick([nil, "c"]), journalKey: random.index(2) == 0 ? nil : pick(Domain.journalKeys),
                    createdAt: T.at(Double(random.index(3)))))
        case 17:
            return random.index(2) == 0
                ? .attempt(pick(Domain.codes), at: time())
                : .resolve(pick(Domain.codes), pick(ChallengeStatus.allCases), at: time())
        case 18:
            let holder = pick(Domain.holders)
            let ttl = Double(random.index(3) + 1) * 0.5
            switch random.index(3) {
            case 0: return .acquire(account: account, holder: holder, at: time(), ttl: ttl)
            case 1:
                return .renew(
                    account: account, holder: holder, token: Int64(random.index(3) + 1), at: time(), ttl: ttl)
            default: return .release(account: account, holder: holder)
            }
        default:
            return .heartbeat(
                Heartbeat(holder: pick(Domain.holders), startedAt: time(), lastTick: time(), detail: "d"),
                remove: random.index(3) == 0)
        }
    }

    /// Applies the operation; its result as text.
    func apply(_ tx: any StateTransaction) async throws -> String {
        switch self {
        case .limiter(let account, let key, let data):
            if let data {
                try await tx.setLimiterState(data, account: account, key: key, at: T.t0)
            } else {
                try await tx.removeLimiterState(account: account, key: key)
            }
            return "ok"
        case .hint(let hint, let remove):
            if remove {
                try await tx.removeLimitHint(account: hint.account, limitClass: hint.limitClass)
            } else {
                try await tx.setLimitHint(hint)
            }
            return "ok"
        case .cursor(let recipe, let job, let at):
            try await tx.setScheduleCursor(recipe: recipe, job: job, lastFired: at, at: at)
            return "ok"
        case .queue(let recipe, let queue, let position):
            try await tx.setQueuePosition(position, recipe: recipe, queue: queue)
            return "ok"
        case .intent(let intent, let at): return "\(try await tx.recordIntent(intent, at: at))"
        case .sent(let key, let at): return "\(try await tx.markSent(key: key, at: at))"
        case .done(let key, let remoteID, let at):
            return "\(try await tx.markDone(key: key, remoteID: remoteID, at: at))"
        case .failed(let key, let retryAt, let at):
            return "\(try await tx.markFailed(key: key, reason: "f", retryAt: retryAt, at: at))"
        case .uncertain(let key, let at): return "\(try await tx.markUncertain(key: key, reason: "u", at: at))"
        case .prune(let account, let before):
            return "\(try await tx.pruneJournal(account: account, doneCreatedBefore: before))"
        case .dedup(let record):
            try await tx.recordDedup(record)
            return "ok"
        case .removeDedup(let account, let kind, let target):
            try await tx.removeDedup(account: account, kind: kind, target: target)
            return "ok"
        case .pause(let pause, let clear):
            if clear {
                try await tx.clearPause(account: pause.account, kind: pause.kind)
            } else {
                try await tx.setPause(pause)
            }
            return "ok"
        case .challenge(let challenge): return "\(try await tx.recordChallenge(challenge))"
        case .attempt(let code, let at): return "\(try await tx.recordChallengeAttempt(code: code, at: at))"
        case .resolve(let code, let status, let at):
            return "\(try await tx.resolveChallenge(code: code, status: status, at: at))"
        case .acquire(let account, let holder, let at, let ttl):
            return "\(try await tx.acquireLease(account: account, holder: holder, now: at, ttl: ttl))"
        case .renew(let account, let holder, let token, let at, let ttl):
            let renewed = try await tx.renewLease(account: account, holder: holder, token: token, now: at, ttl: ttl)
            return renewed.map { "\($0)" } ?? "nil"
        case .release(let account, let holder): return "\(try await tx.releaseLease(account: account, holder: holder))"
        case .heartbeat(let heartbeat, let remove):
            if remove {
                try await tx.removeHeartbeat(holder: heartbeat.holder)
            } else {
                try await tx.recordHeartbeat(heartbeat)
            }
            return "ok"
        }
    }
}
