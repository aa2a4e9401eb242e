import Foundation
import GRDB

extension SQLiteStateStore {
    /// A `MemoryStateStore` holding a copy of every row of this store (for `plan`: a snapshot
    /// of the state file, then weeks of simulated passes without SQLite). One read transaction:
    /// a consistent copy.
    public func memoryCopy() async throws -> MemoryStateStore {
        let tables = try await Self.mapping(path: path) {
            try await readLane.lend { handle in try await handle.run { try $0.memoryTables() } }
        }
        return MemoryStateStore(tables: tables)
    }
}

extension SQLiteAccess {
    /// Every row, as a `MemoryStateStore`'s tables.
    func memoryTables() throws -> MemoryTables {
        var tables = MemoryTables()
        for row in try Row.fetchAll(db, sql: "SELECT account, key, state FROM limiter_state") {
            tables.limiterState[MemoryTables.Pair(row["account"], row["key"])] = row["state"]
        }
        for row in try Row.fetchAll(db, sql: "SELECT DISTINCT account FROM limit_hints") {
            let account: String = row["account"]
            for hint in try limitHints(account: account) {
                tables.limitHints[account, default: [:]][hint.limitClass] = hint
            }
        }
        for row in try Row.fetchAll(db, sql: "SELECT recipe, job, last_fired FROM schedule_cursors") {
            tables.scheduleCursors[MemoryTables.Pair(row["recipe"], row["job"])] = Self.date(row["last_fired"])
        }
        for row in try Row.fetchAll(db, sql: "SELECT recipe, queue FROM queue_positions") {
            let (recipe, queue): (String, String) = (row["recipe"], row["queue"])
            tables.queuePositions[MemoryTables.Pair(recipe, queue)] = try queuePosition(recipe: recipe, queue: queue)
        }
        for row in try Row.fetchAll(db, sql: "SELECT * FROM journal") {
            let entry = try Self.journalEntry(row)
            tables.putJournal(entry.key, entry)
        }
        for row in try Row.fetchAll(db, sql: "SELECT DISTINCT account, kind, target FROM dedup") {
            let (account, target): (String, String) = (row["account"], row["target"])
            let kind = try Self.decode(DedupKind.self, row["kind"])
            tables.putDedup(account, kind, target, try dedupRecords(account: account, kind: kind, target: target))
        }
        for row in try Row.fetchAll(db, sql: "SELECT DISTINCT account FROM pauses") {
            let account: String = row["account"]
            for pause in try pauses(account: account) { tables.pauses[account, default: [:]][pause.kind] = pause }
        }
        for row in try Row.fetchAll(db, sql: "SELECT * FROM challenges") {
            let challenge = try Self.challenge(row)
            tables.putChallenge(challenge.code, challenge)
        }
        for row in try Row.fetchAll(db, sql: "SELECT * FROM content_ledger ORDER BY recorded_at, rowid") {
            let record = Self.contentRecord(row)
            tables.content[record.account, default: []].append(record)
        }
        for row in try Row.fetchAll(db, sql: "SELECT account FROM leases") {
            let account: String = row["account"]
            tables.leases[account] = try lease(account: account)
        }
        for heartbeat in try heartbeats() { tables.heartbeats[heartbeat.holder] = heartbeat }
        return tables
    }
}
