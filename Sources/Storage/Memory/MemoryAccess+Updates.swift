import Foundation

extension MemoryAccess {
    // MARK: Limiter ledger

    func setLimiterState(_ state: Data, account: String, key: String, at now: Date) throws {
        let pair = MemoryTables.Pair(account, key)
        let old = tables.limiterState[pair]
        logUndo { $0.limiterState[pair] = old }
        tables.limiterState[pair] = state
    }

    func removeLimiterState(account: String, key: String) throws {
        let pair = MemoryTables.Pair(account, key)
        let old = tables.limiterState[pair]
        logUndo { $0.limiterState[pair] = old }
        tables.limiterState[pair] = nil
    }

    func setLimitHint(_ hint: LimitHint) throws {
        var hint = hint
        hint.notBefore = hint.notBefore.storedInstant
        hint.recordedAt = hint.recordedAt.storedInstant
        putHint(account: hint.account, limitClass: hint.limitClass, hint)
    }

    func removeLimitHint(account: String, limitClass: String) throws {
        putHint(account: account, limitClass: limitClass, nil)
    }

    private func putHint(account: String, limitClass: String, _ hint: LimitHint?) {
        let old = tables.limitHints[account]?[limitClass]
        logUndo { $0.limitHints[account, default: [:]][limitClass] = old }
        tables.limitHints[account, default: [:]][limitClass] = hint
    }

    // MARK: Schedules and queues

    func setScheduleCursor(recipe: String, job: String, lastFired: Date, at now: Date) throws {
        let pair = MemoryTables.Pair(recipe, job)
        let old = tables.scheduleCursors[pair]
        logUndo { $0.scheduleCursors[pair] = old }
        tables.scheduleCursors[pair] = lastFired.storedInstant
    }

    func setQueuePosition(_ position: QueuePosition, recipe: String, queue: String) throws {
        guard position.next >= 0 else {
            throw StorageError(.database, "state database: CHECK constraint failed: next_index >= 0")
        }
        let pair = MemoryTables.Pair(recipe, queue)
        let old = tables.queuePositions[pair]
        logUndo { $0.queuePositions[pair] = old }
        var position = position
        position.updatedAt = position.updatedAt.storedInstant
        tables.queuePositions[pair] = position
    }

    // MARK: Journal

    func recordIntent(_ intent: JournalIntent, at now: Date) throws -> RecordedIntent {
        if let existing = tables.journal[intent.key] { return RecordedIntent(entry: existing, inserted: false) }
        var stored = intent
        stored.occurrence = intent.occurrence.storedInstant
        stored.notBefore = intent.notBefore.storedInstant
        let entry = JournalEntry(
            intent: stored, state: .intent, attempts: 0, createdAt: now.storedInstant, updatedAt: now.storedInstant)
        putJournal(entry.key, entry)
        return RecordedIntent(entry: entry, inserted: true)
    }

    func markSent(key: String, at now: Date) throws -> JournalEntry {
        try transition(key, to: .sent, at: now) { entry in
            entry.attempts += 1
            entry.sentAt = now.storedInstant
            entry.nextAttemptAt = nil
        }
    }

    func markDone(key: String, remoteID: String?, at now: Date) throws -> JournalEntry {
        try transition(key, to: .done, at: now) { entry in
            if let remoteID { entry.remoteID = remoteID }
            entry.nextAttemptAt = nil
        }
    }

    func markFailed(key: String, reason: String, retryAt: Date?, at now: Date) throws -> JournalEntry {
        try transition(key, to: .failed, at: now) { entry in
            entry.lastError = reason
            entry.nextAttemptAt = retryAt.storedInstant
        }
    }

    func markUncertain(key: String, reason: String, retryAt: Date?, at now: Date) throws -> JournalEntry {
        try transition(key, to: .uncertain, at: now) { entry in
            entry.lastError = reason
            entry.nextAttemptAt = retryAt
        }
    }

    func withdrawUnsent(key: String) throws -> JournalEntry? {
        guard let entry = tables.journal[key],
            entry.state == .intent || (entry.state == .failed && entry.nextAttemptAt != nil)
        else { return nil }
        putJournal(key, nil)
        return entry
    }

    func pruneJournal(account: String, doneCreatedBefore date: Date) throws -> Int {
        let cutOff = date.timeIntervalSince1970
        // The done bucket is ordered by creation: the doomed entries are its prefix, and with
        // nothing to prune this is one comparison (the engine asks at the end of every pass).
        guard let items = tables.journalByAccount[account]?.buckets[.done]?.items,
            let first = items.first, first.createdAt < cutOff
        else { return 0 }
        let count = items.prefix { $0.createdAt < cutOff }.count
        let removed = items.prefix(count).compactMap { tables.journal[$0.key] }
        let keys = Set(removed.map(\.key))
        // ON DELETE SET NULL: facts and challenges that pointed at a deleted entry keep their data.
        // A fact may point at another account's entry: every account is scanned (a prune that
        // finds something happens once a day per account).
        for factAccount in tables.dedup.keys.sorted() {
            for (kind, facts) in tables.dedup[factAccount] ?? [:] {
                for (target, records) in facts.records
                where records.contains(where: { keys.contains($0.journalKey ?? "") }) {
                    putDedup(
                        factAccount, kind, target,
                        records.map { record in
                            var record = record
                            if keys.contains(record.journalKey ?? "") { record.journalKey = nil }
                            return record
                        })
                }
            }
        }
        for challenge in tables.challenges.values where keys.contains(challenge.journalKey ?? "") {
            var cleared = challenge
            cleared.journalKey = nil
            putChallenge(cleared)
        }
        // One cut of the ordered bucket instead of a removal (and a shift of the rest) per entry.
        logUndo { tables in
            for entry in removed { tables.putJournal(entry.key, entry) }
        }
        tables.removeDonePrefix(of: account, removed)
        return removed.count
    }

    /// Moves `key` to `state` if the journal's state machine allows it.
    private func transition(
        _ key: String, to state: JournalState, at now: Date, _ update: (inout JournalEntry) -> Void
    ) throws -> JournalEntry {
        guard var entry = tables.journal[key] else { throw StorageError(.notFound, "no journal entry \(key)") }
        guard entry.state.canMove(to: state), !entry.isFinished || state == .done else {
            throw StorageError(
                .illegalTransition,
                "journal entry \(key) is \(entry.state.rawValue); it cannot become \(state.rawValue)")
        }
        entry.state = state
        entry.updatedAt = now.storedInstant
        update(&entry)
        putJournal(key, entry)
        return entry
    }

    private func putJournal(_ key: String, _ entry: JournalEntry?) {
        let old = tables.journal[key]
        logUndo { $0.putJournal(key, old) }
        tables.putJournal(key, entry)
    }

    // MARK: Dedup facts

    func recordDedup(_ record: DedupRecord) throws {
        var record = record
        record.recordedAt = record.recordedAt.storedInstant
        var records = tables.dedup[record.account]?[record.kind]?.records[record.target] ?? []
        if record.kind.isSingleValued, records.contains(where: { $0.value != record.value }) {
            // SQLite deletes the other values in a statement of its own, before the upsert.
            records.removeAll { $0.value != record.value }
            putDedup(record.account, record.kind, record.target, records)
        }
        if let index = records.firstIndex(where: { $0.value == record.value }) {
            record.journalKey = record.journalKey ?? records[index].journalKey
            records.remove(at: index)
        }
        if let key = record.journalKey { try requireJournal(key) }
        records.append(record)
        records.sort { lhs, rhs in
            if lhs.recordedAt != rhs.recordedAt { return lhs.recordedAt < rhs.recordedAt }
            return TextOrder.less(lhs.value, rhs.value)
        }
        putDedup(record.account, record.kind, record.target, records)
    }

    func removeDedup(account: String, kind: DedupKind, target: String) throws {
        guard tables.dedup[account]?[kind]?.records[target] != nil else { return }
        putDedup(account, kind, target, [])
    }

    private func putDedup(_ account: String, _ kind: DedupKind, _ target: String, _ records: [DedupRecord]) {
        let old = tables.dedup[account]?[kind]?.records[target] ?? []
        logUndo { $0.putDedup(account, kind, target, old) }
        tables.putDedup(account, kind, target, records)
    }

    /// Foreign key `journal_key → journal (key)`.
    private func requireJournal(_ key: String) throws {
        guard tables.journal[key] != nil else {
            throw StorageError(.database, "state database: FOREIGN KEY constraint failed (journal key \(key))")
        }
    }

    // MARK: Content ledger

    func recordContent(_ record: ContentRecord) throws {
        var stored = record
        stored.recordedAt = stored.recordedAt.storedInstant
        let account = record.account
        // Inserted in place, and undone by removing it again (the undo log runs newest first):
        // keeping the old array for the undo made every record copy the agent's whole ledger
        // (a month of 100 recipes' plan spent a tenth of its time there).
        // Oldest first, ties in insertion order (SQLite's recorded_at, rowid).
        let index =
            tables.content[account].map { records in
                records.lastIndex { $0.recordedAt <= stored.recordedAt }.map { $0 + 1 } ?? 0
            } ?? 0
        let existed = tables.content[account] != nil
        logUndo { tables in
            if existed { tables.content[account]?.remove(at: index) } else { tables.content[account] = nil }
        }
        tables.content[account, default: []].insert(stored, at: index)
    }

    func pruneContent(account: String, before date: Date) throws -> Int {
        let cut = date.storedInstant
        // Oldest first: nothing to prune is one comparison (the engine asks at every pass's end).
        guard let old = tables.content[account], let oldest = old.first, oldest.recordedAt < cut else { return 0 }
        let kept = old.filter { $0.recordedAt >= cut }
        guard kept.count != old.count else { return 0 }
        logUndo { $0.content[account] = old }
        tables.content[account] = kept
        return old.count - kept.count
    }

    func forgetContent(account: String, journalKey: String) throws -> Int {
        guard let old = tables.content[account] else { return 0 }
        let kept = old.filter { $0.journalKey != journalKey }
        guard kept.count != old.count else { return 0 }
        logUndo { $0.content[account] = old }
        tables.content[account] = kept
        return old.count - kept.count
    }

    // MARK: Pauses and challenges

    func setPause(_ pause: AccountPause) throws {
        var pause = pause
        pause.until = pause.until.storedInstant
        pause.createdAt = pause.createdAt.storedInstant
        putPause(account: pause.account, kind: pause.kind, pause)
    }

    func clearPause(account: String, kind: PauseKind) throws {
        putPause(account: account, kind: kind, nil)
    }

    private func putPause(account: String, kind: PauseKind, _ pause: AccountPause?) {
        let old = tables.pauses[account]?[kind]
        logUndo { $0.pauses[account, default: [:]][kind] = old }
        tables.pauses[account, default: [:]][kind] = pause
    }

    func recordChallenge(_ challenge: StoredChallenge) throws -> StoredChallenge {
        if let existing = tables.challenges[challenge.code] { return existing }
        if let key = challenge.journalKey { try requireJournal(key) }
        var stored = challenge
        stored.expiresAt = stored.expiresAt.storedInstant
        stored.createdAt = stored.createdAt.storedInstant
        stored.updatedAt = stored.updatedAt.storedInstant
        putChallenge(stored)
        return stored
    }

    func recordChallengeAttempt(code: String, at now: Date) throws -> StoredChallenge {
        try updateChallenge(code) { challenge in
            challenge.attempts += 1
            challenge.updatedAt = now.storedInstant
        }
    }

    func resolveChallenge(code: String, status: ChallengeStatus, at now: Date) throws -> StoredChallenge {
        try updateChallenge(code) { challenge in
            challenge.status = status
            challenge.updatedAt = now.storedInstant
        }
    }

    private func updateChallenge(_ code: String, _ update: (inout StoredChallenge) -> Void) throws -> StoredChallenge {
        guard var challenge = tables.challenges[code] else { throw StorageError(.notFound, "no challenge \(code)") }
        update(&challenge)
        putChallenge(challenge)
        return challenge
    }

    private func putChallenge(_ challenge: StoredChallenge) {
        let code = challenge.code
        let old = tables.challenges[code]
        logUndo { $0.putChallenge(code, old) }
        tables.putChallenge(code, challenge)
    }

    // MARK: Leases and health

    func acquireLease(account: String, holder: String, now: Date, ttl: TimeInterval) throws -> LeaseResult {
        precondition(ttl > 0, "a lease needs a positive time to live")
        let start = now.storedInstant
        let expiry = now.addingTimeInterval(ttl).storedInstant
        let old = tables.leases[account]
        if let old, !old.holder.isEmpty, old.holder != holder, old.isLive(at: start) {
            return .heldBy(holder: old.holder, until: old.expiresAt)
        }
        let kept = old.map { $0.holder == holder && $0.isLive(at: start) } == true
        let sameHolder = old?.holder == holder
        let lease = Lease(
            account: account, holder: holder, token: sameHolder ? old!.token : (old?.token ?? 0) + 1,
            acquiredAt: kept ? old!.acquiredAt : start, expiresAt: expiry)
        putLease(account, lease)
        return .acquired(lease)
    }

    func renewLease(account: String, holder: String, token: Int64, now: Date, ttl: TimeInterval) throws -> Lease? {
        precondition(ttl > 0, "a lease needs a positive time to live")
        guard var lease = tables.leases[account], !holder.isEmpty, lease.holder == holder, lease.token == token
        else { return nil }
        lease.expiresAt = now.addingTimeInterval(ttl).storedInstant
        putLease(account, lease)
        return lease
    }

    func releaseLease(account: String, holder: String) throws -> Bool {
        guard var lease = tables.leases[account], !holder.isEmpty, lease.holder == holder else { return false }
        // Kept holder-less and expired, as SQLite keeps the row: the token counts on.
        lease.holder = ""
        lease.expiresAt = Date(timeIntervalSince1970: 0)
        putLease(account, lease)
        return true
    }

    private func putLease(_ account: String, _ lease: Lease?) {
        let old = tables.leases[account]
        logUndo { $0.leases[account] = old }
        tables.leases[account] = lease
    }

    func recordHeartbeat(_ heartbeat: Heartbeat) throws {
        var heartbeat = heartbeat
        heartbeat.startedAt = heartbeat.startedAt.storedInstant
        heartbeat.lastTick = heartbeat.lastTick.storedInstant
        putHeartbeat(heartbeat.holder, heartbeat)
    }

    func removeHeartbeat(holder: String) throws { putHeartbeat(holder, nil) }

    private func putHeartbeat(_ holder: String, _ heartbeat: Heartbeat?) {
        let old = tables.heartbeats[holder]
        logUndo { $0.heartbeats[holder] = old }
        tables.heartbeats[holder] = heartbeat
    }
}
