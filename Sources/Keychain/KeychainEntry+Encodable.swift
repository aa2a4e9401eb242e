/// `keys list --json`: the entry's kind, metadata and key fingerprint, never the key, with the
/// same field names as inside the file. A model key has no Moltbook metadata, so no `claim_status`.
extension KeychainEntry: Encodable {
    enum CodingKeys: String, CodingKey {
        case name, kind
        case keyFingerprint = "key_fingerprint"
        case agentID = "agent_id"
        case claimURL = "claim_url"
        case verificationCode = "verification_code"
        case claimStatus = "claim_status"
        case baseURL = "base_url"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(kind.rawValue, forKey: .kind)
        try container.encode(keyFingerprint, forKey: .keyFingerprint)
        try container.encodeIfPresent(metadata.agentID, forKey: .agentID)
        try container.encodeIfPresent(metadata.claimURL, forKey: .claimURL)
        try container.encodeIfPresent(metadata.verificationCode, forKey: .verificationCode)
        if kind == .agent { try container.encode(metadata.claimStatus, forKey: .claimStatus) }
        try container.encodeIfPresent(metadata.baseURL, forKey: .baseURL)
        try container.encode(StoredPayload.timestamp(createdAt), forKey: .createdAt)
        try container.encode(StoredPayload.timestamp(updatedAt), forKey: .updatedAt)
    }
}
