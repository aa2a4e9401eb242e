import Foundation
import Keychain
import Logging
import MoltbookAPI
import MoltipassEngine

/// `moltipass register NAME --description …`: registers an agent and keeps its key in the
/// keychain before anything else is shown.
///
/// Order: check the agent name against Moltbook's rule, unlock the keychain and check the
/// entry name (so a bad name, a wrong passphrase or an existing entry fails before an agent
/// exists on the server), register, store the key, and only then report. If storing fails after a successful registration, the key is **not** printed (it
/// would end up in terminal scrollback, CI logs or cron mail); the report gives the claim URL
/// and says how to recover: the owner claims the agent, rotates its key on the dashboard and
/// adds the new key with `keys add`.
public struct RegistrationFlow: Sendable {
    /// What the operator needs after a registration, key excluded.
    public struct Result: Sendable, Equatable {
        public var name: String
        public var fingerprint: String
        public var claimURL: String?
        public var verificationCode: String?
        public var tweetTemplate: String?
        public var keychainPath: String
        public var agentID: String?
        /// The base URL stored in the entry (nil: the default).
        public var baseURL: String?

        /// `register --json`.
        public var keyReport: AgentKeyReport {
            var report = AgentKeyReport(
                name: name, result: "registered", claimStatus: ClaimStatus.pendingClaim.rawValue,
                keyFingerprint: fingerprint, text: self.report)
            report.agentID = agentID
            report.claimURL = claimURL
            report.verificationCode = verificationCode
            report.tweet = tweetTemplate
            report.baseURL = baseURL
            report.keychain = keychainPath
            return report
        }

        /// The lines printed on stdout.
        public var report: String {
            var lines = ["registered \(name) (key \(fingerprint), stored in \(keychainPath))"]
            lines.append("claim URL: \(claimURL ?? "(none returned)")")
            lines.append("verification code: \(verificationCode ?? "(none returned)")")
            if let tweetTemplate { lines.append("tweet: \(tweetTemplate)") }
            lines.append("next: have the owner open the claim URL, then run `moltipass claim \(name) --wait`")
            return lines.joined(separator: "\n")
        }
    }

    public let session: KeysSession
    public let logger: Logger

    public init(session: KeysSession, logger: Logger) {
        self.session = session
        self.logger = logger
    }

    public func register(
        name: String, description: String, baseURL: String?, replace: Bool, now: () -> Date = Date.init
    ) async throws -> Result {
        try Self.checkAgentName(name)
        let client = try KeysEndpoint.client(baseURL: baseURL, apiKey: nil, logger: logger)
        if try session.store.read().entry(named: name) != nil, !replace {
            throw KeychainError.entryExists(name: name, path: session.path)
        }
        let registration: Registration
        do {
            registration = try await client.register(name: name, description: description).value
        } catch {
            throw Self.explain(error, name: name)
        }
        let metadata = KeychainEntry.Metadata(
            agentID: registration.agentID, claimURL: registration.claimURL,
            verificationCode: registration.verificationCode, claimStatus: .pendingClaim,
            baseURL: KeysEndpoint.storedBaseURL(client.baseURL))
        do {
            try session.store.add(
                name: name, key: registration.apiKey, metadata: metadata, replace: replace, now: now())
        } catch {
            throw KeysFailure(
                .keychain,
                "registered \(name) on Moltbook but could NOT store its key in \(session.path): \(error). "
                    + "The key is not printed. Claim URL: \(registration.claimURL ?? "(none returned)"), "
                    + "verification code: \(registration.verificationCode ?? "(none)"). Have the owner claim the "
                    + "agent, rotate its key on the dashboard, then run `moltipass keys add \(name)`.")
        }
        return Result(
            name: name, fingerprint: registration.apiKey.fingerprint, claimURL: registration.claimURL,
            verificationCode: registration.verificationCode, tweetTemplate: registration.tweetTemplate,
            keychainPath: session.path, agentID: registration.agentID, baseURL: metadata.baseURL)
    }

    /// The agent-name rule Moltbook enforces, in the words the help and the errors use.
    public static let nameRule = "2-32 letters, digits or '_' (ASCII, no '-')"

    /// Whether Moltbook accepts `name` as an agent name: 2–32 of `[A-Za-z0-9_]`. (Keychain entry
    /// names are local and may also hold `-` and `.`.)
    public static func isValidAgentName(_ name: String) -> Bool {
        (2...32).contains(name.unicodeScalars.count)
            && name.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "_": true
                default: false
                }
            }
    }

    /// Refuses, before any request, a name Moltbook would refuse: a usage failure that states
    /// the rule and, when replacing `-` by `_` makes the name valid, suggests that name.
    public static func checkAgentName(_ name: String) throws {
        guard !isValidAgentName(name) else { return }
        let underscored = name.replacingOccurrences(of: "-", with: "_")
        let suggestion = isValidAgentName(underscored) ? "; try \(underscored)" : ""
        throw KeysFailure(
            .usage, "the agent name \(name) is not valid: names are \(nameRule)\(suggestion); nothing was registered")
    }

    /// Registration errors in plain words: 409 name taken (14), 400 invalid (64), 429 (75).
    public static func explain(_ error: any Error, name: String) -> any Error {
        guard let error = error as? APIError else { return error }
        let said = error.serverError.map { " (Moltbook said: \($0))" } ?? ""
        switch error.code {
        case .conflict:
            return KeysFailure(.conflict, "the agent name \(name) is taken on Moltbook; choose another name\(said)")
        case .badRequest:
            return KeysFailure(
                .usage,
                "Moltbook refused the registration of \(name)\(said); names are \(nameRule), "
                    + "and the description must be a non-empty string")
        case .rateLimited:
            let wait = error.rateLimit.retryWait(now: Date()).map { " Try again in \(Int($0.rounded(.up))) s." } ?? ""
            return KeysFailure(
                .transient,
                "Moltbook limits how many agents can be registered from one address in a period, and this one "
                    + "hit it; nothing was registered.\(wait)")
        default:
            return error
        }
    }
}
