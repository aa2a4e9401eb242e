import Foundation

/// The handle a `MemoryStateStore` closure gets: the tables, lent for the closure, and the log
/// of inverse updates that rolls a throwing transaction back.
///
/// Its methods are synchronous (they witness the protocols' `async` requirements): there is
/// nothing to wait for, and a call through the protocol never suspends.
final class MemoryAccess: StateTransaction {
    var tables: MemoryTables
    private var undo: [(inout MemoryTables) -> Void] = []

    init(tables: MemoryTables) { self.tables = tables }

    /// Applies the inverse updates, newest first.
    func rollBack() {
        for step in undo.reversed() { step(&tables) }
        undo.removeAll()
    }

    /// Logs how to put the tables back before an update.
    func logUndo(_ step: @escaping (inout MemoryTables) -> Void) { undo.append(step) }

    // MARK: Limiter ledger

    func limiterState(account: String, key: String) throws -> Data? {
        tables.limiterState[MemoryTables.Pair(account, key)]
    }

    func limitHints(account: String) throws -> [LimitHint] {
        (tables.limitHints[account] ?? [:]).values.sorted { TextOrder.less($0.limitClass, $1.limitClass) }
    }

    // MARK: Schedules and queues

    func scheduleCursor(recipe: String, job: String) throws -> Date? {
        tables.scheduleCursors[MemoryTables.Pair(recipe, job)]
    }

    func queuePosition(recipe: String, queue: String) throws -> QueuePosition? {
        tables.queuePositions[MemoryTables.Pair(recipe, queue)]
    }

    // MARK: Journal

    func journalEntry(key: String) throws -> JournalEntry? { tables.journal[key] }

    func journalEntries(account: String, states: Set<JournalState>) throws -> [JournalEntry] {
        entries(account: account, buckets: states.flatMap(JournalBucket.buckets(for:)))
    }

    func pendingJournalEntries(account: String) throws -> [JournalEntry] {
        entries(account: account, buckets: JournalBucket.pending)
    }

    func journalTargets(account: String, actions: Set<String>) throws -> [String: Set<String>] {
        guard let targets = tables.journalByAccount[account]?.targets else { return [:] }
        var result: [String: Set<String>] = [:]
        for action in actions {
            if let found = targets[action], !found.isEmpty { result[action] = found }
        }
        return result
    }

    /// The entries of `buckets`, ordered by (created at, occurrence, step, key).
    private func entries(account: String, buckets: [JournalBucket]) -> [JournalEntry] {
        guard let journal = tables.journalByAccount[account] else { return [] }
        let lists = buckets.compactMap { journal.buckets[$0] }.filter { !$0.isEmpty }
        let items: [OrderedKeys.Item] =
            lists.count == 1 ? lists[0].items : lists.flatMap(\.items).sorted { $0 < $1 }
        return items.compactMap { tables.journal[$0.key] }
    }

    // MARK: Dedup facts

    func dedupRecords(account: String, kind: DedupKind, target: String) throws -> [DedupRecord] {
        tables.dedup[account]?[kind]?.records[target] ?? []
    }

    func dedupTargets(account: String, kind: DedupKind, value: String?) throws -> Set<String> {
        guard let facts = tables.dedup[account]?[kind] else { return [] }
        guard let value else { return facts.targets }
        return facts.targetsByValue[value] ?? []
    }

    // MARK: Content ledger

    func contentRecords(account: String, since: Date) throws -> [ContentRecord] {
        guard let records = tables.content[account] else { return [] }
        let cut = since.storedInstant
        // Oldest first: the first record at or after `cut` by bisection (the engine reads the
        // few records since its last pass out of a month of them).
        var (low, high) = (records.startIndex, records.endIndex)
        while low < high {
            let middle = (low + high) / 2
            if records[middle].recordedAt < cut { low = middle + 1 } else { high = middle }
        }
        return Array(records[low...])
    }

    // MARK: Pauses and challenges

    func pauses(account: String) throws -> [AccountPause] {
        (tables.pauses[account] ?? [:]).values.sorted { TextOrder.less($0.kind.rawValue, $1.kind.rawValue) }
    }

    func challenge(code: String) throws -> StoredChallenge? { tables.challenges[code] }

    func challenges(account: String, status: ChallengeStatus?, limit: Int) throws -> [StoredChallenge] {
        let all = (tables.challengeCodes[account] ?? []).compactMap { tables.challenges[$0] }
            .filter { status == nil || $0.status == status }
            .sorted { lhs, rhs in
                if lhs.createdAt != rhs.createdAt { return lhs.createdAt > rhs.createdAt }
                return TextOrder.less(lhs.code, rhs.code)
            }
        return Array(all.prefix(max(0, limit)))
    }

    // MARK: Leases and health

    func lease(account: String) throws -> Lease? { tables.leases[account].flatMap { $0.holder.isEmpty ? nil : $0 } }

    func leases() throws -> [Lease] {
        tables.leases.values.filter { !$0.holder.isEmpty }.sorted { $0.account < $1.account }
    }

    func holdsLease(account: String, holder: String, now: Date) throws -> Bool {
        guard let lease = try lease(account: account) else { return false }
        return lease.holder == holder && lease.expiresAt.timeIntervalSince1970 > now.timeIntervalSince1970
    }

    func heartbeats() throws -> [Heartbeat] {
        tables.heartbeats.values.sorted { TextOrder.less($0.holder, $1.holder) }
    }

    func knownAccounts() throws -> [String] {
        var accounts = Set(tables.limiterState.keys.map(\.first))
        accounts.formUnion(tables.limitHints.filter { !$0.value.isEmpty }.keys)
        accounts.formUnion(tables.journalByAccount.filter { $0.value.buckets.values.contains { !$0.isEmpty } }.keys)
        accounts.formUnion(tables.dedup.filter { $0.value.values.contains { !$0.records.isEmpty } }.keys)
        accounts.formUnion(tables.pauses.filter { !$0.value.isEmpty }.keys)
        accounts.formUnion(tables.challengeCodes.filter { !$0.value.isEmpty }.keys)
        accounts.formUnion(tables.leases.keys)
        return accounts.sorted(by: TextOrder.less)
    }
}
