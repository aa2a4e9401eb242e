import Foundation

/// The right of one holder to write for one account until `expiresAt`.
public struct Lease: Sendable, Equatable {
    public var account: String
    /// Who holds it: a process-unique id (host, pid, random suffix).
    public var holder: String
    /// The fencing token: per account, larger every time the lease changes holder (a new lease,
    /// a takeover, an acquisition after a release), kept while one holder extends it. A runner
    /// records a write only while the lease still carries the token it was given
    /// (`renewLease(account:holder:token:now:ttl:)`): one that lost the lease and took it again
    /// later cannot commit for a pass that started under the old token.
    public var token: Int64
    /// When this holder first acquired it (kept across renewals).
    public var acquiredAt: Date
    public var expiresAt: Date

    public init(account: String, holder: String, token: Int64 = 1, acquiredAt: Date, expiresAt: Date) {
        self.account = account
        self.holder = holder
        self.token = token
        self.acquiredAt = acquiredAt
        self.expiresAt = expiresAt
    }

    /// Whether the lease is still in force at `now` (`expiresAt` is exclusive).
    public func isLive(at now: Date) -> Bool { expiresAt.timeIntervalSince1970 > now.timeIntervalSince1970 }
}

/// The outcome of `acquireLease`.
public enum LeaseResult: Sendable, Equatable {
    /// The caller holds the lease (new, taken over after expiry, or already its own and extended).
    case acquired(Lease)
    /// Another holder's live lease: do nothing for this account.
    case heldBy(holder: String, until: Date)

    public var lease: Lease? {
        if case .acquired(let lease) = self { return lease }
        return nil
    }
}
