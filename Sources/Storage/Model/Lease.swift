import Foundation

/// The right of one holder to write for one account until `expiresAt`.
public struct Lease: Sendable, Equatable {
    public var account: String
    /// Who holds it: a process-unique id (host, pid, random suffix).
    public var holder: String
    /// When this holder first acquired it (kept across renewals).
    public var acquiredAt: Date
    public var expiresAt: Date

    public init(account: String, holder: String, acquiredAt: Date, expiresAt: Date) {
        self.account = account
        self.holder = holder
        self.acquiredAt = acquiredAt
        self.expiresAt = expiresAt
    }
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
