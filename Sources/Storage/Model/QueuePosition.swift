import Foundation

/// How far a recipe has got through one content-queue file.
public struct QueuePosition: Sendable, Equatable {
    /// The index of the next item to use.
    public var next: Int
    /// A fingerprint of the last item used (its hash), so an edited file can be detected.
    public var lastItem: String?
    public var updatedAt: Date

    public init(next: Int, lastItem: String? = nil, updatedAt: Date) {
        self.next = next
        self.lastItem = lastItem
        self.updatedAt = updatedAt
    }
}
