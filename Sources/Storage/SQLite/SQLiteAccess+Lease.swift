import Foundation
import GRDB

extension SQLiteAccess {
    func acquireLease(account: String, holder: String, now: Date, ttl: TimeInterval) throws -> LeaseResult {
        precondition(ttl > 0, "a lease needs a positive time to live")
        // One statement: insert, or take over only an expired lease or one's own. Racing
        // connections serialise on SQLite's write lock; exactly one row results. A released
        // lease is a row with no holder: taken like an expired one, its token counted on.
        try db.execute(
            sql: """
                INSERT INTO leases (account, holder, acquired_at, expires_at, token) VALUES (?, ?, ?, ?, 1)
                ON CONFLICT (account) DO UPDATE SET
                    acquired_at = CASE WHEN leases.holder = excluded.holder
                        AND leases.expires_at > excluded.acquired_at
                        THEN leases.acquired_at ELSE excluded.acquired_at END,
                    token = CASE WHEN leases.holder = excluded.holder THEN leases.token ELSE leases.token + 1 END,
                    holder = excluded.holder,
                    expires_at = excluded.expires_at
                WHERE leases.holder = excluded.holder OR leases.expires_at <= excluded.acquired_at
                """,
            arguments: [account, holder, Self.seconds(now), Self.seconds(now.addingTimeInterval(ttl))])
        guard let lease = try lease(account: account) else {
            throw StorageError(.database, "lease of \(account) vanished after upsert")
        }
        return lease.holder == holder ? .acquired(lease) : .heldBy(holder: lease.holder, until: lease.expiresAt)
    }

    func renewLease(account: String, holder: String, token: Int64, now: Date, ttl: TimeInterval) throws -> Lease? {
        precondition(ttl > 0, "a lease needs a positive time to live")
        try db.execute(
            sql: "UPDATE leases SET expires_at = ? WHERE account = ? AND holder = ? AND token = ?",
            arguments: [Self.seconds(now.addingTimeInterval(ttl)), account, holder, token])
        return db.changesCount == 1 ? try lease(account: account) : nil
    }

    func releaseLease(account: String, holder: String) throws -> Bool {
        // The row stays, holder-less and expired, so the account's token keeps counting.
        try db.execute(
            sql: "UPDATE leases SET holder = '', expires_at = 0 WHERE account = ? AND holder = ? AND holder <> ''",
            arguments: [account, holder])
        return db.changesCount == 1
    }

    func recordHeartbeat(_ heartbeat: Heartbeat) throws {
        try db.execute(
            sql: """
                INSERT INTO heartbeats (holder, started_at, last_tick, detail) VALUES (?, ?, ?, ?)
                ON CONFLICT (holder) DO UPDATE SET
                    started_at = excluded.started_at, last_tick = excluded.last_tick, detail = excluded.detail
                """,
            arguments: [
                heartbeat.holder, Self.seconds(heartbeat.startedAt), Self.seconds(heartbeat.lastTick), heartbeat.detail,
            ])
    }

    func removeHeartbeat(holder: String) throws {
        try db.execute(sql: "DELETE FROM heartbeats WHERE holder = ?", arguments: [holder])
    }
}
