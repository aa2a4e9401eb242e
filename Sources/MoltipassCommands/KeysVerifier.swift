import Foundation
import Keychain
import Logging
import MoltbookAPI
import MoltipassEngine

/// `keys verify NAME`: asks Moltbook what it thinks of a stored key and records the answer.
public struct KeysVerifier: Sendable {
    /// What the server said about the key.
    public enum Outcome: Sendable, Equatable {
        case claimed
        case pendingClaim
        case invalid
        case suspended(detail: String)

        /// The claim status stored in the entry.
        public var claimStatus: ClaimStatus {
            switch self {
            case .claimed: .claimed
            case .pendingClaim: .pendingClaim
            case .invalid: .invalid
            case .suspended: .suspended
            }
        }

        /// 0 when the agent can work, 77 (auth broken) when it cannot: pending, invalid, suspended.
        public var exitStatus: ExitStatus { self == .claimed ? .ok : .authBroken }
    }

    public let session: KeysSession
    public let logger: Logger

    public init(session: KeysSession, logger: Logger) {
        self.session = session
        self.logger = logger
    }

    /// Calls `/agents/me` then `/agents/status` with the key of `name` (at `baseURL`, else the
    /// entry's), stores the claim status (and the agent id when it was missing), and returns the
    /// outcome with a report. When the server at a given `baseURL` recognised the key (claimed
    /// or pending claim), that URL becomes the entry's, so `claim` and `run` go there too; the
    /// report says so when it changed. Transient failures (5xx, network, 429) throw and leave
    /// the entry alone.
    public func verify(name: String, baseURL: String?, now: () -> Date = Date.init) async throws
        -> (outcome: Outcome, report: AgentKeyReport)
    {
        let given = try baseURL.map { try KeysEndpoint.checkedBaseURL($0) }
        let (entry, key) = try session.entryAndKey(name)
        let client = try KeysEndpoint.client(
            baseURL: baseURL ?? entry.metadata.baseURL, apiKey: key, logger: logger)
        let outcome: Outcome
        var agentID: String?
        do {
            (outcome, agentID) = try await Self.ask(client)
        } catch let error as APIError {
            switch error.code {
            case .invalidKey, .authenticationRequired: outcome = .invalid
            case .suspended: outcome = .suspended(detail: error.serverHint ?? error.message)
            case .notClaimed: outcome = .pendingClaim
            default: throw error
            }
        }
        let recognised = outcome == .claimed || outcome == .pendingClaim
        let newBaseURL = given.flatMap { recognised ? $0 : nil }
        var movedTo: URL?
        var stored = entry.metadata
        try session.store.updateMetadata(name: name, now: now()) { metadata in
            metadata.claimStatus = outcome.claimStatus
            if let newBaseURL, metadata.baseURL != KeysEndpoint.storedBaseURL(newBaseURL) {
                metadata.baseURL = KeysEndpoint.storedBaseURL(newBaseURL)
                if let agentID { metadata.agentID = agentID }  // the id on the server the entry now points at
                movedTo = newBaseURL
            }
            if metadata.agentID == nil, let agentID { metadata.agentID = agentID }
            stored = metadata
        }
        var text = Self.report(name: name, fingerprint: key.fingerprint, outcome: outcome, entry: entry)
        if let movedTo {
            text += "\n\(name): base URL stored: \(movedTo.absoluteString) (claim, keys verify and run use it now)"
        }
        var report = AgentKeyReport(
            name: name, result: outcome.claimStatus.rawValue, claimStatus: outcome.claimStatus.rawValue,
            keyFingerprint: key.fingerprint, text: text)
        report.agentID = stored.agentID
        report.claimURL = stored.claimURL
        report.baseURL = stored.baseURL
        report.baseURLStored = movedTo != nil
        if case .suspended(let detail) = outcome { report.detail = detail }
        return (outcome, report)
    }

    /// `/agents/me` (the key works at all), then `/agents/status` (claimed or not).
    static func ask(_ client: MoltbookClient) async throws -> (Outcome, agentID: String?) {
        let me = try await client.me().value
        guard let state = try await statusIfServed(client) else {
            // A server without `/agents/status` (issue 33, observation 11): the key works, and
            // `/agents/me` says what it says of the claim; one that says nothing needs none.
            let said = me.status?.lowercased() ?? ""
            if said.contains("suspend") { return (.suspended(detail: said), me.id) }
            if me.claimed == false { return (.pendingClaim, me.id) }
            return (.claimed, me.id)
        }
        switch state {
        case .claimed: return (.claimed, me.id)
        case .pendingClaim: return (.pendingClaim, me.id)
        case .other(let text):
            return (text.lowercased().contains("suspend") ? .suspended(detail: text) : .pendingClaim, me.id)
        }
    }

    /// `/agents/status`, or nil on a server that has no such route (404, 405).
    static func statusIfServed(_ client: MoltbookClient) async throws -> AgentStatus.State? {
        let result: Result<AgentStatus.State, APIError>
        do {
            result = .success(try await client.status().value.state)
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let state): return state
        case .failure(let error) where error.code == .notFound || error.code == .methodNotAllowed: return nil
        case .failure(let error): throw error
        }
    }

    static func report(name: String, fingerprint: String, outcome: Outcome, entry: KeychainEntry) -> String {
        switch outcome {
        case .claimed:
            return "\(name): claimed (key \(fingerprint))"
        case .pendingClaim:
            let url = entry.metadata.claimURL.map { "; claim URL: \($0)" } ?? ""
            return "\(name): pending claim — the owner has not claimed the agent yet (key \(fingerprint))\(url)"
        case .invalid:
            return "\(name): invalid — Moltbook rejected the key \(fingerprint); rotate it on the owner dashboard, "
                + "then `moltipass keys add \(name) --replace`"
        case .suspended(let detail):
            return "\(name): suspended (key \(fingerprint)): \(detail)"
        }
    }
}
