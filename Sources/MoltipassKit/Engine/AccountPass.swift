import Foundation
import Logging
import MoltbookAPI
import Recipes
import Scheduling
import Storage

/// One account's part of a pass. Lives for one pass, on one task.
final class AccountPass {
    let runner: Runner
    let agent: String
    let now: Date
    /// The drain's decisions, with the account's limiter (`DrainMachine`).
    var machine: DrainMachine
    /// The account's limiter: the machine's (modified in place, not copied: `_modify`).
    var limiter: Limiter {
        get { machine.limiter }
        _modify { yield &machine.limiter }
        set { machine.limiter = newValue }
    }
    var client: MoltbookClient?
    var clientError: String?
    var createdAt: Date?
    /// The agent's name and id on the server (`GET /agents/me`): the keychain entry's name is
    /// only a local label, and "is this post mine" must be asked with the server's.
    var serverName: String?
    var serverID: String?
    /// Whether the server says the agent is claimed (`AccountInfo.claimed`).
    var claimed: Bool?
    var authBroken: String?
    /// A pause decided where no report was at hand (the identity read): merged at the end.
    var pausedUntil: Date?
    /// A `key_refused` pause ran out: read `/agents/me` before anything else, even if the
    /// identity is known, to see whether the key works again.
    var mustProbeKey = false
    /// Read `/agents/me` when the client is made, whatever is known (the daemon's start).
    var readIdentityAnyway = false
    /// Votes being restored after the server took them back (at most once each).
    var restoringVotes: Set<String> = []
    /// The auth breaker's pause ran out before this pass: probe with a read before the first write.
    var breakerWasOpen = false
    var probedThisPass = false
    /// Recipe and job of the journal entries seen in this pass, for report lines about challenges.
    var journalContext: [String: (recipe: String, job: String)] = [:]
    /// The limiter and account info as last read or written: unchanged ones are not written again.
    var storedLimiter: Data?
    var storedInfo: AccountInfo?
    /// The `max_per_day` counts, read on first use in the pass and kept current.
    var dailyCounts: DailyCounts?
    /// The content-queue items taken, read on first use in the pass and kept current.
    var queueLedger: QueueLedger?
    /// Whether this pass took queue items (the ledger is then stored with the planned writes).
    var queueLedgerChanged = false
    /// The posts and comments sent within the duplicate window or waiting to be sent, by exact
    /// fingerprint: read on first use in the pass and kept current.
    var contentSeen: [String: ContentSighting]?

    var store: any StateStore { runner.store }
    var logger: Logger { runner.logger }
    var recipes: [Recipe] { runner.recipes.filter { $0.agent.value == agent } }

    init(runner: Runner, agent: String, now: Date) {
        self.runner = runner
        self.agent = agent
        self.now = now
        self.machine = DrainMachine(limiter: Limiter(rules: LimitRules.rules(for: .newAgent)), now: now)
    }

    /// Takes the account's lease (or a dead holder's over); false, with the report saying so,
    /// when another live process holds it or the store fails.
    func takeLease(into report: inout RunReport) async -> Bool {
        do {
            switch try await store.acquireLease(
                account: agent, holder: runner.configuration.holder, now: now, ttl: runner.configuration.leaseTTL)
            {
            case .heldBy(let other, let until):
                guard try await takeOver(from: other) else {
                    logger.info(
                        "account locked", metadata: ["agent": "\(agent)", "holder": "\(other)", "until": "\(until)"])
                    report.locked.append(agent)
                    return false
                }
                logger.warning(
                    "took over the lease of a process that no longer exists",
                    metadata: ["agent": "\(agent)", "holder": "\(other)"])
            case .acquired:
                break
            }
            return true
        } catch {
            logger.error("state store failed", metadata: ["agent": "\(agent)", "error": "\(error)"])
            report.transientFailures += 1
            return false
        }
    }

    func run(into report: inout RunReport) async {
        guard await takeLease(into: &report) else { return }
        await loadLimiter()
        var allPauses = (try? await store.read { [agent] in try $0.pauses(account: agent) }) ?? []
        if let refused = allPauses.first(where: { $0.kind == .keyRefused && $0.isActive(at: now) }),
            await keyReplaced(since: refused)
        {
            allPauses.removeAll { $0.kind == .keyRefused }
            mustProbeKey = true
        }
        let pauses = allPauses.filter { $0.isActive(at: now) }
        breakerWasOpen = allPauses.contains { $0.kind == .authBreaker && !$0.isActive(at: now) }
        mustProbeKey = mustProbeKey || allPauses.contains { $0.kind == .keyRefused && !$0.isActive(at: now) }
        if let refused = pauses.first(where: { $0.kind == .keyRefused }) {
            // A refused key is an auth problem for cron and health, not an ordinary pause.
            report.authBroken[agent] = refused.reason
        }
        if !pauses.isEmpty {
            let until = pauses.map { $0.until ?? .distantFuture }.max() ?? .distantFuture
            report.pause(agent, until: until, kinds: pauses.map(\.kind))
            // The daemon wakes when the pause ends (the auth breaker's trial, the end of a suspension).
            if until < .distantFuture { report.due(at: until) }
        }
        await dropStaleWrites(into: &report)
        await plan(into: &report)
        if pauses.isEmpty {
            await drain(into: &report)
        } else {
            await reportPending(into: &report, reason: "account paused: \(pauses[0].reason)", until: pauses[0].until)
        }
        await endPass()
        if let pausedUntil {
            report.pause(agent, until: pausedUntil, kinds: [.suspended])
            report.due(at: pausedUntil)
        }
        if let authBroken { report.authBroken[agent] = authBroken }
        if let clientError { report.keychainFailures[agent] = clientError }
        if client != nil, clientError == nil { report.keysChecked.append(agent) }
        if claimed == false { report.unclaimed.append(agent) }
    }

    /// Ends the pass in one transaction: the limiter and account info if they changed, the
    /// heartbeat, done journal entries past the retention pruned, and (`run --once`) the lease
    /// released. One durable commit instead of three.
    ///
    /// Released here, awaited: a `Task` started from a `defer` may never run before a
    /// `run --once` process exits, leaving the lease to block the next cron run for its TTL. If
    /// the transaction fails, the release is tried on its own.
    func endPass() async {
        let (limiterData, info) = limiterWrites()
        let heartbeat = Heartbeat(
            holder: runner.configuration.holder, startedAt: now, lastTick: now, detail: "agent \(agent)")
        let (agent, holder, now, release) = (
            agent, runner.configuration.holder, now, runner.configuration.releaseLeases
        )
        let cutOff = runner.configuration.journalCutOff(at: now)
        let keepContent = now.addingTimeInterval(-duplicateWindow)
        do {
            let pruned = try await store.transaction { transaction in
                try Self.write(limiter: limiterData, info: info, account: agent, at: now, in: transaction)
                try transaction.recordHeartbeat(heartbeat)
                let pruned = try cutOff.map { try transaction.pruneJournal(account: agent, doneCreatedBefore: $0) } ?? 0
                if let cutOff {
                    // The content ledger is kept for the guard's window at least.
                    let before = min(cutOff, keepContent)
                    _ = try transaction.pruneContent(account: agent, before: before)
                }
                if release { _ = try transaction.releaseLease(account: agent, holder: holder) }
                return pruned
            }
            stored(limiterData, info)
            if pruned > 0, let cutOff {
                logger.info(
                    "pruned done journal entries past the retention",
                    metadata: [
                        "agent": "\(agent)", "event": "journal_pruned", "entries": "\(pruned)",
                        "created_before": "\(MoltbookDate.format(cutOff))",
                    ])
            }
        } catch {
            logger.error(
                "could not store the end of the pass (limiter, heartbeat, lease)",
                metadata: ["agent": "\(agent)", "error": "\(error)"])
            if release { _ = try? await store.releaseLease(account: agent, holder: holder) }
        }
    }

    /// Takes the lease from `other` when it names a process of this machine that no longer exists
    /// (a run killed mid-pass): released and taken in one transaction, only if `other` still holds
    /// it. Its writes in flight are in the journal as `sent` and are reconciled by the drain.
    func takeOver(from other: String) async throws -> Bool {
        guard runner.configuration.isDeadHolder(other) else { return false }
        let (agent, holder, now, ttl) = (agent, runner.configuration.holder, now, runner.configuration.leaseTTL)
        return try await store.transaction { transaction in
            guard try transaction.releaseLease(account: agent, holder: other) else { return false }
            if case .acquired = try transaction.acquireLease(account: agent, holder: holder, now: now, ttl: ttl) {
                return true
            }
            return false
        }
    }

    // MARK: Limiter

    func profile() -> LimitProfile {
        var profile = LimitRules.profile(createdAt: createdAt, at: now)
        for recipe in recipes { profile = profile.applying(recipe.limits) }
        return profile
    }

    func loadLimiter() async {
        let stored = try? await store.read { [agent] reader in
            (
                try reader.limiterState(account: agent, key: "limiter"),
                try reader.limiterState(account: agent, key: "account")
            )
        }
        if let data = stored?.0 {
            let agent = agent
            if let known = runner.decodedLimiters.withLock({ $0[agent] }), known.bytes == data {
                limiter = known.limiter
                storedLimiter = data
            } else if let decoded = try? Limiter(serialized: data) {
                limiter = decoded
                storedLimiter = data
                remember(decoded, as: data)
            }
        }
        if let data = stored?.1, let info = AccountInfo(stored: data) {
            createdAt = info.createdAt
            serverName = info.name
            serverID = info.id
            claimed = info.claimed
            storedInfo = info
        }
        limiter.setRules(LimitRules.rules(for: profile()))
    }

    /// Keeps `limiter` with its stored bytes for the next pass (see `Runner.decodedLimiters`).
    func remember(_ limiter: Limiter, as bytes: Data) {
        let agent = agent
        runner.decodedLimiters.withLock { $0[agent] = (bytes, limiter) }
    }

    /// Stores the limiter and the account info, each only if it changed since it was read or written.
    func saveLimiter() async {
        let (limiterData, info) = limiterWrites()
        guard limiterData != nil || info != nil else { return }
        let (agent, now) = (agent, now)
        do {
            try await store.transaction { transaction in
                try Self.write(limiter: limiterData, info: info, account: agent, at: now, in: transaction)
            }
            stored(limiterData, info)
        } catch {
            logger.error("could not store the limiter", metadata: ["agent": "\(agent)", "error": "\(error)"])
        }
    }

    /// The limiter's and the account info's stored forms, each nil when unchanged since read or written.
    func limiterWrites() -> (limiter: Data?, info: Data?) {
        // Equal to the value its stored bytes were decoded from or written as: nothing to serialise.
        let agent = agent
        let known = runner.decodedLimiters.withLock { $0[agent] }
        let data =
            if let storedLimiter, let known, known.bytes == storedLimiter, known.limiter == limiter {
                storedLimiter
            } else {
                limiter.serialized()
            }
        let current = AccountInfo(createdAt: createdAt, name: serverName, id: serverID, claimed: claimed)
        let info = current == storedInfo ? nil : current.stored
        return (data == storedLimiter ? nil : data, info)
    }

    /// Writes what `limiterWrites()` gave (either may be nil: unchanged) in `transaction`.
    static func write(
        limiter: Data?, info: Data?, account: String, at now: Date, in transaction: any StateTransaction
    ) throws {
        if let limiter { try transaction.setLimiterState(limiter, account: account, key: "limiter", at: now) }
        if let info { try transaction.setLimiterState(info, account: account, key: "account", at: now) }
    }

    /// Notes what `limiterWrites()` gave as stored.
    func stored(_ limiterData: Data?, _ info: Data?) {
        if let limiterData {
            storedLimiter = limiterData
            remember(limiter, as: limiterData)
        }
        if info != nil {
            storedInfo = AccountInfo(createdAt: createdAt, name: serverName, id: serverID, claimed: claimed)
        }
    }

    /// Who the agent is on the server: its name and id there when known, else the entry name.
    var identity: AgentIdentity { AgentIdentity(name: serverName ?? agent, id: serverID) }

    /// The agent's client, made on first use; learns the agent's identity and age once.
    /// Nil when the keychain or the key fails (`clientError`, `authBroken`).
    func requireClient() async -> MoltbookClient? {
        if let client { return authBroken == nil ? client : nil }
        if clientError != nil || authBroken != nil { return nil }
        do {
            let made = try await runner.makeClient(agent, recipes.first?.baseURL?.value)
            client = made
            if createdAt == nil || serverName == nil || mustProbeKey || readIdentityAnyway {
                await readIdentity(made)
            }
            return authBroken == nil ? made : nil
        } catch let error as APIError {
            keyRefused(error)
        } catch {
            clientError = "\(error)"
        }
        return nil
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
            serverName = me.value.name
            serverID = me.value.id ?? serverID
            claimed = me.value.isClaimed ?? claimed
            if let created = me.value.createdAt {
                createdAt = created
                limiter.setRules(LimitRules.rules(for: profile()))
            }
            if mustProbeKey {
                mustProbeKey = false
                let agent = agent
                _ = try? await store.transaction { try $0.clearPause(account: agent, kind: .keyRefused) }
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
                pausedUntil = max(pausedUntil ?? until, until)
                authBroken = "\(error.message) (writes paused until \(MoltbookDateText.iso(until)))"
            default:
                break  // the read failed for another reason: the identity stays as known
            }
        }
    }

    /// Folds a response's hints into the limiter. `window`: the class the response's
    /// `X-RateLimit-*` headers describe (the request class unless the endpoint says otherwise).
    func absorb(
        _ hint: RateLimitHint, status: Int, action: LimitClass?, request: LimitClass, reservedAt: Date? = nil,
        window: LimitClass? = nil
    ) {
        let absorbed = limiter.absorb(
            hint, status: status, action: action, request: request, reservedAt: reservedAt, window: window, at: now)
        for (limitClass, spacing) in absorbed.learned {
            logger.warning(
                "server stricter than the limit profile; spacing learned",
                metadata: ["agent": "\(agent)", "class": "\(limitClass.rawValue)", "spacing_s": "\(Int(spacing))"])
        }
    }
}

/// What the engine remembers about an account besides its limiter.
///
/// Stored in `Codable`'s default shape (`{"createdAt": seconds since 2001-01-01}`, `{}` when
/// unknown), read and written through `JSONValue`: it is read on every pass.
struct AccountInfo: Codable, Equatable {
    var createdAt: Date?
    /// The agent's name and id on the server (older state files have neither).
    var name: String?
    var id: String?
    /// `is_claimed` as `GET /agents/me` last said (nil: not said). An unclaimed agent is
    /// unhealthy (`status --health`) but not paused: some servers let unclaimed agents act, and
    /// one that does not refuses the write, which pauses the agent then.
    var claimed: Bool?

    init(createdAt: Date?, name: String? = nil, id: String? = nil, claimed: Bool? = nil) {
        self.createdAt = createdAt
        self.name = name
        self.id = id
        self.claimed = claimed
    }

    init?(stored: Data) {
        guard let fields = (try? JSONValue.parse(stored))?.object else { return nil }
        switch fields["createdAt"] {
        case nil, .null?: createdAt = nil
        case .number(let seconds)?: createdAt = Date(timeIntervalSinceReferenceDate: seconds)
        default: return nil
        }
        name = fields["name"]?.string
        id = fields["id"]?.string
        claimed = fields["claimed"]?.bool
    }

    var stored: Data {
        var fields: [String: JSONValue] = [:]
        if let createdAt { fields["createdAt"] = .number(createdAt.timeIntervalSinceReferenceDate) }
        if let name { fields["name"] = .string(name) }
        if let id { fields["id"] = .string(id) }
        if let claimed { fields["claimed"] = .bool(claimed) }
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
