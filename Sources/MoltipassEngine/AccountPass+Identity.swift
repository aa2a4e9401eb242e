import Foundation
import Logging
import MoltbookAPI
import RateLimiting
import Recipes
import Storage

/// Who the agent is on the server: the client made when a request is first due, and one
/// `GET /agents/me` for the name, id, age and claim.
extension AccountPass {
    /// The agent's client, made on first use; learns the agent's identity and age once.
    /// Nil when the keychain or the key fails (`access.clientError`, `access.authBroken`).
    func requireClient() async -> MoltbookClient? {
        if let client = access.client { return access.authBroken == nil ? client : nil }
        if access.clientError != nil || access.authBroken != nil { return nil }
        do {
            let made = try await runner.makeClient(agent, recipes.first?.baseURL?.value).with(gate: requestGate())
            if let conflict = serverConflict(made.baseURL) {
                access.authBroken = conflict
                logger.error("state conflict", metadata: ["agent": "\(agent)", "why": "\(conflict)"])
                return nil
            }
            access.client = made
            // An agent last seen unclaimed is read again (one read per pass until it is claimed),
            // so a claim made since shows at once in the run and in `status --health`.
            if info.createdAt == nil || info.name == nil || info.claimed == false || probes.mustProbeKey
                || probes.readIdentityAnyway
            {
                await readIdentity(made)
            }
            return access.authBroken == nil ? made : nil
        } catch let error as APIError {
            keyRefused(error)
        } catch {
            access.clientError = "\(error)"
        }
        return nil
    }

    /// The state knows an agent by its keychain entry name, and an agent is its server and its
    /// name (issue 33, observation 10): the server the state first saw this name on is recorded
    /// (`AccountInfo.server`), and a recipe that points the same name at another server, with
    /// the same state, is refused before any request, with what to do, instead of being treated
    /// as the same agent (its posts skipped as duplicates of the other's, its subscriptions taken
    /// as done). Nil when the server is this agent's (or the first one seen, now recorded).
    func serverConflict(_ baseURL: URL) -> String? {
        guard runner.configuration.checksServer else { return nil }
        let server = AccountInfo.serverIdentity(baseURL)
        guard let recorded = info.server else {
            info.server = server
            return nil
        }
        guard recorded != server else { return nil }
        return "this state holds the agent '\(agent)' of \(recorded), and this recipe points '\(agent)' at \(server): "
            + "one state keeps one agent per keychain entry name; give this recipe a state of its own (--state) "
            + "or its agent another entry name; nothing was sent"
    }

    /// One `GET /agents/me`: the agent's name, id and age. A refused key (401 on this read of
    /// the agent's own profile, the one route every server has) becomes a stored pause, so
    /// every later run sees it without sending anything; a suspension becomes one too; a 429
    /// holds the read class, so the next read waits instead of drawing another.
    func readIdentity(_ client: MoltbookClient) async {
        guard case .allowed = limiter.reserve([.read], at: now) else { return }
        do {
            let me = try await client.me()
            absorb(me.rateLimit, status: me.status, action: nil, request: .read)
            info.name = me.value.name
            info.id = me.value.id ?? info.id
            info.claimed = me.value.claimed ?? info.claimed
            if let created = me.value.createdAt {
                info.createdAt = created
                limiter.setRules(LimitRules.rules(for: profile()))
            }
            if probes.mustProbeKey {
                probes.mustProbeKey = false
                let agent = agent
                _ = try? await store.transaction { try await $0.clearPause(account: agent, kind: .keyRefused) }
                logger.info("the key works again; key_refused pause lifted", metadata: ["agent": "\(agent)"])
            }
        } catch {
            absorb(error.rateLimit, status: error.status ?? 0, action: nil, request: .read)
            switch error.code {
            case .invalidKey, .authenticationRequired, .notClaimed:
                await refuseKey(error)
            case .suspended:
                let until = now.addingTimeInterval(error.suspensionRemaining ?? Self.unknownSuspension)
                await storePause(.suspended, until: until, reason: error.message)
                access.pausedUntil = max(access.pausedUntil ?? until, until)
                access.authBroken = "\(error.message) (writes paused until \(MoltbookDateText.iso(until)))"
            default:
                break  // the read failed for another reason: the identity stays as known
            }
        }
    }
}

/// What the engine remembers about an account besides its limiter.
///
/// Stored in `Codable`'s default shape (`{"createdAt": seconds since 2001-01-01}`, `{}` when
/// unknown), read and written through `JSONValue`: it is read on every pass.
package struct AccountInfo: Codable, Equatable {
    var createdAt: Date?
    /// The agent's name and id on the server (older state files have neither).
    var name: String?
    var id: String?
    /// `is_claimed` as `GET /agents/me` last said (nil: not said). An unclaimed agent is
    /// unhealthy (`status --health`) but not paused: some servers let unclaimed agents act, and
    /// one that does not refuses the write, which pauses the agent then.
    package var claimed: Bool?
    /// False once a challenged post or comment was found absent after its challenge was
    /// answered right: this server keeps nothing unverified (issue 33, observation 5), so content
    /// whose challenge failed is looked for too, and sent again when it is not there. Nil: not
    /// learned (moltbook.com keeps unverified content, hidden: never sent again).
    package var keepsUnverified: Bool?
    /// The server the state first saw this agent on (`serverIdentity`); nil in older state files
    /// until the next pass records it.
    package var server: String?

    /// A server as the state records it: the API base URL without a trailing slash, scheme and
    /// host in lowercase.
    static func serverIdentity(_ url: URL) -> String {
        var text = url.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        if let scheme = url.scheme, let host = url.host {
            let prefix = "\(scheme)://\(host)"
            if text.lowercased().hasPrefix(prefix.lowercased()) {
                text = prefix.lowercased() + text.dropFirst(prefix.count)
            }
        }
        return text
    }

    init(createdAt: Date?, name: String? = nil, id: String? = nil, claimed: Bool? = nil) {
        self.createdAt = createdAt
        self.name = name
        self.id = id
        self.claimed = claimed
    }

    package init?(stored: Data) {
        guard let fields = (try? JSONValue.parse(stored))?.object else { return nil }
        switch fields["createdAt"] {
        case nil, .null?: createdAt = nil
        case .number(let seconds)?: createdAt = Date(timeIntervalSinceReferenceDate: seconds)
        default: return nil
        }
        name = fields["name"]?.string
        id = fields["id"]?.string
        claimed = fields["claimed"]?.bool
        keepsUnverified = fields["keepsUnverified"]?.bool
        server = fields["server"]?.string
    }

    var stored: Data {
        var fields: [String: JSONValue] = [:]
        if let createdAt { fields["createdAt"] = .number(createdAt.timeIntervalSinceReferenceDate) }
        if let name { fields["name"] = .string(name) }
        if let id { fields["id"] = .string(id) }
        if let claimed { fields["claimed"] = .bool(claimed) }
        if let keepsUnverified { fields["keepsUnverified"] = .bool(keepsUnverified) }
        if let server { fields["server"] = .string(server) }
        return JSONValue.object(fields).encoded()
    }
}

/// Who an agent is on the server, for "is this mine" questions: its id when both sides have
/// one, else its name (case-insensitively; servers preserve case but names are unique without it).
public struct AgentIdentity: Sendable, Equatable {
    public var name: String
    public var id: String?

    public init(name: String, id: String? = nil) {
        self.name = name
        self.id = id
    }

    /// Whether `author` is this agent.
    public func isSelf(_ author: AuthorRef?) -> Bool {
        guard let author else { return false }
        if let id, let other = author.id { return id == other }
        return author.name.lowercased() == name.lowercased()
    }
}
