import Foundation

/// The last sign of life of one engine process, for `status --health`.
public struct Heartbeat: Sendable, Equatable {
    /// The process's holder id (the same id it uses for leases).
    public var holder: String
    public var startedAt: Date
    public var lastTick: Date
    /// Free text: pid, version, mode (`daemon`, `once`).
    public var detail: String

    public init(holder: String, startedAt: Date, lastTick: Date, detail: String = "") {
        self.holder = holder
        self.startedAt = startedAt
        self.lastTick = lastTick
        self.detail = detail
    }

    /// The heartbeat of a process whose leases last `leaseTime`: said in `detail` ("agent a;
    /// lease 180s"), so that whoever reads it judges the process by its own lease time (the
    /// heartbeats table has no column for it, and a free-text detail needs no migration).
    public init(holder: String, startedAt: Date, lastTick: Date, detail: String, leaseTime: TimeInterval) {
        self.init(
            holder: holder, startedAt: startedAt, lastTick: lastTick,
            detail: "\(detail); lease \(Int(leaseTime.rounded(.up)))s")
    }

    /// The lease time `detail` says, or nil (a heartbeat written before it said one).
    public var leaseTime: TimeInterval? {
        guard let range = detail.range(of: "; lease ", options: .backwards), detail.hasSuffix("s") else { return nil }
        let number = detail[range.upperBound...].dropLast()
        return Int(number).flatMap { $0 > 0 ? TimeInterval($0) : nil }
    }

    /// Whether this is a daemon still alive at `now`: a `daemon-` holder whose last tick is
    /// younger than its lease time (a daemon ticks at least every half lease time), or than
    /// `fallback` when the heartbeat does not say its own. `run --once` runs come and go: never.
    public func isLiveDaemon(at now: Date, fallback: TimeInterval) -> Bool {
        holder.hasPrefix("daemon-") && now.timeIntervalSince(lastTick) < (leaseTime ?? fallback)
    }
}
