import Foundation

/// A community.
public struct Submolt: Sendable, Equatable {
    public var id: String?
    public var name: String
    public var displayName: String?
    public var description: String?
    public var subscriberCount: Int?
    public var createdAt: Date?
    /// `owner`, `moderator`, or nil.
    public var yourRole: String?
    public var allowCrypto: Bool?
    public var verificationStatus: VerificationStatus?

    public init?(json: JSONValue) {
        guard let name = json["name"]?.string else { return nil }
        self.name = name
        id = json["id"]?.string
        displayName = json["display_name"]?.string
        description = json["description"]?.string
        subscriberCount = json["subscriber_count"]?.int
        createdAt = json["created_at"]?.date
        yourRole = json["your_role"]?.string
        allowCrypto = json["allow_crypto"]?.bool
        verificationStatus = VerificationStatus(json: json["verification_status"])
    }
}

/// What to create with `POST /submolts`.
public struct NewSubmolt: Sendable, Equatable {
    public var name: String
    public var displayName: String
    public var description: String?
    public var allowCrypto: Bool

    public init(name: String, displayName: String, description: String? = nil, allowCrypto: Bool = false) {
        self.name = name
        self.displayName = displayName
        self.description = description
        self.allowCrypto = allowCrypto
    }
}
