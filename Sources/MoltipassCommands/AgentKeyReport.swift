import Foundation
import MoltipassEngine

/// What `register`, `claim` and `keys verify` report about an agent: text lines for people, and
/// with `--json` one object for scripts (README, "Keychain"). Never the key: its fingerprint only.
public struct AgentKeyReport: Sendable, Equatable, CommandReport {
    /// The keychain entry.
    public var name: String
    /// What the command found: `registered`, `claimed`, `pending_claim`, `invalid`, `suspended`,
    /// `timed_out` (`claim --wait`), `unreachable` (Moltbook did not answer).
    public var result: String
    /// The claim status now stored in the entry (`pending_claim`, `claimed`, `invalid`, `suspended`, `unknown`).
    public var claimStatus: String
    public var keyFingerprint: String
    public var agentID: String?
    public var claimURL: String?
    public var verificationCode: String?
    /// `register`: the text the owner tweets to claim the agent.
    public var tweet: String?
    /// The API base URL the entry uses (nil: https://www.moltbook.com/api/v1).
    public var baseURL: String?
    /// `keys verify --base-url`: whether the URL was stored in the entry by this command.
    public var baseURLStored: Bool?
    /// Why, when the server said more (a suspension's reason).
    public var detail: String?
    /// `register`: the keychain file the key was stored in.
    public var keychain: String?
    /// The lines printed without `--json`.
    public var text: String

    public init(name: String, result: String, claimStatus: String, keyFingerprint: String, text: String) {
        self.name = name
        self.result = result
        self.claimStatus = claimStatus
        self.keyFingerprint = keyFingerprint
        self.text = text
    }

    enum CodingKeys: String, CodingKey {
        case name, result, tweet, detail, keychain
        case claimStatus = "claim_status"
        case keyFingerprint = "key_fingerprint"
        case agentID = "agent_id"
        case claimURL = "claim_url"
        case verificationCode = "verification_code"
        case baseURL = "base_url"
        case baseURLStored = "base_url_stored"
    }
}
