import Foundation
import Logging
import MoltbookAPI
import RateLimiting
import Recipes
import Storage

/// One account's part of a pass. Lives for one pass, on one task.
final class AccountPass {
    let runner: Runner
    let agent: String
    let now: Date
    /// The account's decisions (`AccountMachine`); this class is its driver.
    var machine: AccountMachine
    /// The account's limiter: the machine's (modified in place, not copied: `_modify`).
    var limiter: Limiter {
        get { machine.limiter }
        _modify { yield &machine.limiter }
        set { machine.limiter = newValue }
    }
    /// The client and what the pass found of the key and the account's standing.
    var access = Access()
    /// Reads of `/agents/me` the pass owes before it writes.
    var probes = Probes()
    /// The agent's creation time, name and id on the server, and claim state (`GET /agents/me`):
    /// the keychain entry's name is only a local label, and "is this post mine" must be asked
    /// with the server's.
    var info = AccountInfo(createdAt: nil)
    /// What the pass remembers: the limiter and account info as stored, votes being restored,
    /// the journal context of report lines, the duplicate guard's sightings.
    var memo = Memo()
    /// What the pass read of the agent's inbox, and what its steps made of it (issue 22).
    var inbox = InboxPass()

    var store: any StateStore { runner.store }
    var logger: Logger { runner.logger }
    var recipes: [Recipe] { runner.recipesByAgent[agent] ?? [] }

    /// The limiter before the stored one is read (made once: building rules is not free, and
    /// every pass starts from it).
    static let newAgentLimiter = Limiter(rules: LimitRules.rules(for: .newAgent))

    init(runner: Runner, agent: String, now: Date) {
        self.runner = runner
        self.agent = agent
        self.now = now
        self.machine = AccountMachine(
            agent: agent, recipes: runner.recipesByAgent[agent] ?? [], jobs: runner.jobsByAgent[agent] ?? [],
            configuration: runner.configuration,
            snapshot: AccountMachine.Snapshot(
                limiter: Self.newAgentLimiter, identity: AgentIdentity(name: agent)),
            now: now)
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
            case .acquired(let lease):
                access.lease.took(token: lease.token, until: lease.expiresAt)
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
        guard let stored = await readSnapshot() else {
            report.transientFailures += 1
            if runner.configuration.releaseLeases {
                _ = try? await store.releaseLease(account: agent, holder: runner.configuration.holder)
            }
            return
        }
        applyStored(limiter: stored.limiter, account: stored.account)
        // Another server's agent under this name in this state (issue 33, observation 10):
        // refused before anything is planned (the cursors and facts are that agent's).
        if let declared = recipes.first?.baseURL?.value, let url = URL(string: declared),
            let conflict = serverConflict(url)
        {
            report.authBroken[agent] = conflict
            logger.error("state conflict", metadata: ["agent": "\(agent)", "why": "\(conflict)"])
            if runner.configuration.releaseLeases {
                _ = try? await store.releaseLease(account: agent, holder: runner.configuration.holder)
            }
            return
        }
        var allPauses = stored.pauses
        if let refused = allPauses.first(where: { $0.kind == .keyRefused && $0.isActive(at: now) }),
            await keyReplaced(since: refused)
        {
            allPauses.removeAll { $0.kind == .keyRefused }
            probes.mustProbeKey = true
        }
        let pauses = allPauses.filter { $0.isActive(at: now) }
        probes.breakerWasOpen = allPauses.contains { $0.kind == .authBreaker && !$0.isActive(at: now) }
        probes.mustProbeKey =
            probes.mustProbeKey || allPauses.contains { $0.kind == .keyRefused && !$0.isActive(at: now) }
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
        var snapshot = snapshot(from: stored)
        snapshot.paused = pauses.first.map { ($0.reason, $0.until) }
        machine = AccountMachine(
            agent: agent, recipes: recipes, jobs: runner.jobsByAgent[agent] ?? [], configuration: runner.configuration,
            snapshot: snapshot, now: now)
        let start = now
        await drive(decide { $0.tick(now: start) }, into: &report)
        await markInboxRead(into: &report)
        await readRequestsForStatus()
        await endPass()
        reportLeaseUnconfirmed(into: &report)
        if let pausedUntil = access.pausedUntil {
            report.pause(agent, until: pausedUntil, kinds: [.suspended])
            report.due(at: pausedUntil)
        }
        // A suspension stops the agent like a refused key but is a pause (exit 6, README "Exit
        // codes"), not a broken key (77): issue 33, observation 11.
        if let authBroken = access.authBroken, access.pausedUntil == nil { report.authBroken[agent] = authBroken }
        if let clientError = access.clientError { report.keychainFailures[agent] = clientError }
        if access.client != nil, access.clientError == nil { report.keysChecked.append(agent) }
        if info.claimed == false { report.unclaimed.append(agent) }
    }

    /// Ends the pass in one transaction: the limiter and account info if they changed, the
    /// heartbeat, done journal entries past the retention pruned, and (`run --once`) the lease
    /// released. One durable commit instead of three.
    ///
    /// Released here, awaited: a `Task` started from a `defer` may never run before a
    /// `run --once` process exits, leaving the lease to block the next cron run for its TTL. If
    /// the transaction fails, the release is tried on its own.
    func endPass() async {
        // A runner that lost the lease leaves the limiter and the account's record to the new
        // holder (its writes would overwrite a ledger it no longer owns).
        let (limiterData, info) = access.leaseLost ? (nil, nil) : limiterWrites()
        let heartbeat = Heartbeat(
            holder: runner.configuration.holder, startedAt: now, lastTick: now, detail: "agent \(agent)",
            leaseTime: runner.configuration.leaseTTL)
        // A lease lost during the pass is not this pass's to release (its holder may even be this
        // process again, under a newer token).
        let (agent, holder, now, release) = (
            agent, runner.configuration.holder, now, runner.configuration.releaseLeases && !access.leaseLost
        )
        let cutOff = runner.configuration.journalCutOff(at: now)
        let summary = access.leaseLost ? nil : inboxSummary()
        let keepContent = now.addingTimeInterval(-duplicateWindow)
        do {
            let pruned = try await store.transaction { transaction in
                try await Self.write(limiter: limiterData, info: info, account: agent, at: now, in: transaction)
                try await transaction.recordHeartbeat(heartbeat)
                try await summary?.write(account: agent, at: now, in: transaction)
                var pruned = 0
                if let cutOff { pruned = try await transaction.pruneJournal(account: agent, doneCreatedBefore: cutOff) }
                if let cutOff {
                    // The content ledger is kept for the guard's window at least.
                    let before = min(cutOff, keepContent)
                    _ = try await transaction.pruneContent(account: agent, before: before)
                }
                if release { _ = try await transaction.releaseLease(account: agent, holder: holder) }
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
        let lease: Lease? = try await store.transaction { transaction in
            guard try await transaction.releaseLease(account: agent, holder: other) else { return nil }
            return try await transaction.acquireLease(account: agent, holder: holder, now: now, ttl: ttl).lease
        }
        guard let lease else { return false }
        access.lease.took(token: lease.token, until: lease.expiresAt)
        return true
    }
}

extension AccountPass {
    /// The client of the pass and what it found of the key and the account's standing.
    struct Access {
        var client: MoltbookClient?
        /// The client could not be made (the keychain, the key's entry).
        var clientError: String?
        /// The key or the account cannot write now (refused, suspended).
        var authBroken: String?
        /// A pause decided where no report was at hand (the identity read): merged at the end.
        var pausedUntil: Date?
        /// The lease this pass took and what became of it (`LeaseWatch`): shared with the
        /// client's gate, which keeps every request back once the lease cannot be vouched for.
        let lease = LeaseWatch()
        /// Another runner took the agent's lease over during this pass (`AccountPass+Fence`), or
        /// it could not be renewed in time (`LeaseWatch`): nothing more is sent or journaled for
        /// the agent, and the pass reports it locked.
        var leaseLost: Bool {
            get { lease.isLost }
            nonmutating set { if newValue { lease.lose(.takenOver) } }
        }
        /// The fencing token of the lease this pass took (`Lease.token`).
        var leaseToken: Int64 { lease.token }
    }

    /// Reads of `/agents/me` the pass owes before it writes.
    struct Probes {
        /// A `key_refused` pause ran out: read `/agents/me` before anything else, even if the
        /// identity is known, to see whether the key works again.
        var mustProbeKey = false
        /// Read `/agents/me` when the client is made, whatever is known (the daemon's start).
        var readIdentityAnyway = false
        /// The auth breaker's pause ran out before this pass: probe with a read before the first write.
        var breakerWasOpen = false
        var probedThisPass = false
    }

    /// What the pass remembers between its steps.
    struct Memo {
        /// The limiter and account info as last read or written: unchanged ones are not written again.
        var storedLimiter: Data?
        var storedInfo: AccountInfo?
        /// Votes being restored after the server took them back (at most once each).
        var restoringVotes: Set<String> = []
        /// Recipe and job of the journal entries seen in this pass, for report lines about challenges.
        var journalContext: [String: (recipe: String, job: String)] = [:]
        /// The posts and comments sent within the duplicate window or waiting to be sent, by exact
        /// fingerprint: read on first use in the pass (the machine keeps its own copy current).
        var contentSeen: ContentSightings?
        /// Whether the agent's posts and comments were read from the server in this pass (the
        /// ledger's seed or its refresh: `AccountPass+Duplicates`).
        var serverRecordRead = false
    }
}
