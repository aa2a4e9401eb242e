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
}
