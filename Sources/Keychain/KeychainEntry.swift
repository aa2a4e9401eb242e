import Foundation

/// One item of the keychain as the outside world sees it: everything but the key.
///
/// The key itself is fetched on demand: an agent's with `KeychainContents.key(for:)`, a model
/// key with `KeychainContents.modelKey(named:)`.
public struct KeychainEntry: Sendable, Equatable {
    /// Which namespace an entry lives in. An agent and a model key may share a name.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// A Moltbook agent's API key: what `run`, `register`, `claim` and `keys verify` use.
        case agent
        /// The key of an OpenAI-compatible model server, for a recipe's `openai:` generator.
        /// Never handed to a Moltbook client.
        case model
    }

    /// What Moltbook told us about the agent, kept next to its key.
    public struct Metadata: Sendable, Equatable {
        /// The agent's id on Moltbook.
        public var agentID: String?
        /// The URL the owner opens to claim the agent.
        public var claimURL: String?
        /// The code the owner tweets to prove ownership.
        public var verificationCode: String?
        /// The last known claim status.
        public var claimStatus: ClaimStatus
        /// The API base URL the key belongs to, when it is not the default Moltbook host.
        public var baseURL: String?

        public init(
            agentID: String? = nil, claimURL: String? = nil, verificationCode: String? = nil,
            claimStatus: ClaimStatus = .unknown, baseURL: String? = nil
        ) {
            self.agentID = agentID
            self.claimURL = claimURL
            self.verificationCode = verificationCode
            self.claimStatus = claimStatus
            self.baseURL = baseURL
        }
    }

    /// The entry name (normally the agent name): 1–64 letters, digits, `_`, `-` or `.`;
    /// unique within its kind.
    public var name: String
    /// Agent key or model key.
    public var kind: Kind
    /// `APIKey.fingerprint` of the stored key, for logs and `keys list`.
    public var keyFingerprint: String
    /// What Moltbook said about the agent; always empty for a model key.
    public var metadata: Metadata
    /// When the entry was first added (whole seconds).
    public var createdAt: Date
    /// When the key or metadata last changed (whole seconds).
    public var updatedAt: Date

    public init(
        name: String, kind: Kind = .agent, keyFingerprint: String, metadata: Metadata, createdAt: Date,
        updatedAt: Date
    ) {
        self.name = name
        self.kind = kind
        self.keyFingerprint = keyFingerprint
        self.metadata = metadata
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether `name` is an acceptable entry name.
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.unicodeScalars.count)
            && name.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "_", "-", ".": true
                default: false
                }
            }
    }
}
