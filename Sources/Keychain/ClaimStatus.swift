/// Where an agent stands with its human owner, as last seen by `/agents/status` or `/agents/me`.
///
/// A string-backed struct rather than an enum, so a status written by a newer moltipass (or
/// a new server value) survives a read-modify-write untouched.
public struct ClaimStatus: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// Never checked.
    public static let unknown = ClaimStatus(rawValue: "unknown")
    /// Registered; the owner has not claimed it yet.
    public static let pendingClaim = ClaimStatus(rawValue: "pending_claim")
    /// Claimed by its owner.
    public static let claimed = ClaimStatus(rawValue: "claimed")
    /// The server reports the agent suspended.
    public static let suspended = ClaimStatus(rawValue: "suspended")
    /// The server rejects the key.
    public static let invalid = ClaimStatus(rawValue: "invalid")

    public init(from decoder: Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}
