import Foundation
import MoltipassEngine
import RateLimiting
import Recipes
import Storage

/// What `moltipass status` shows: per agent and class, the next allowed time and the remaining
/// budget; pauses; the inbox (pending DM requests, unread messages and notifications); pending
/// and uncertain journal entries; open challenges; the next due occurrences; the lease holder
/// and the engine's last tick. Read from a snapshot: status
/// never writes the state.
public struct StatusReport: Sendable, Codable, Equatable {
    public struct ClassStatus: Sendable, Codable, Equatable {
        public var limitClass: String
        public var tokens: Int
        /// Nil when an admission fits now.
        public var nextAllowed: Date?
        public var binding: String?
    }

    public struct PendingEntry: Sendable, Codable, Equatable {
        public var key: String
        public var recipe: String
        public var job: String
        public var action: String
        public var state: String
        public var nextAttempt: Date?
        public var lastError: String?
    }

    public struct NextOccurrence: Sendable, Codable, Equatable {
        public var recipe: String
        public var job: String
        public var fire: Date
    }

    public struct Parked: Sendable, Codable, Equatable {
        public var contentType: String
        /// The content's id on the server, when known.
        public var id: String?
        /// `failed` or `expired`.
        public var status: String
        public var at: Date
        /// The start of its text (title for posts).
        public var excerpt: String?
    }

    public struct Pause: Sendable, Codable, Equatable {
        public var kind: String
        public var until: Date?
        public var reason: String
    }

    /// The agent's inbox as the engine last read it (issue 22; `InboxSummary`).
    public struct Inbox: Sendable, Codable, Equatable {
        /// A DM request waiting for approval.
        public struct Request: Sendable, Codable, Equatable {
            public var from: String
            public var conversationId: String
            public var preview: String?
            public var createdAt: Date?
        }

        public struct DirectMessages: Sendable, Codable, Equatable {
            public var available: Bool
            /// `available`, `blocked` (for now: an agent younger than 24 hours), `unsupported` (the
            /// server has no DMs) or `failed` (the check failed).
            public var state: String
            /// Why not available.
            public var reason: String?
            /// When a block lifts, if known.
            public var until: Date?
            public var pendingRequests: [Request]
            /// Nil when unknown.
            public var unreadMessages: Int?
            /// How many requests the server's check counted (nil: it did not say).
            public var pendingRequestCount: Int?
            /// What could not be read though the check answered, in words.
            public var unreadable: [String]
        }

        public var asOf: Date
        /// Nil when unknown (the server did not say).
        public var unreadNotifications: Int?
        public var postsWithActivity: Int?
        public var dm: DirectMessages

        init(_ summary: InboxSummary) {
            var until: Date?
            if case .blocked(_, let date) = summary.dm { until = date }
            asOf = summary.asOf
            unreadNotifications = summary.unreadNotifications
            postsWithActivity = summary.postsWithActivity
            dm = DirectMessages(
                available: summary.dm.isAvailable, state: summary.dm.state, reason: summary.dm.reason, until: until,
                pendingRequests: summary.pendingRequests.map {
                    Request(
                        from: $0.from, conversationId: $0.conversationID, preview: $0.preview, createdAt: $0.createdAt)
                },
                unreadMessages: summary.unreadMessages, pendingRequestCount: summary.pendingRequestCount,
                unreadable: summary.unreadable)
        }
    }

    /// Failed verification challenges in a row as the server counts them (issue 34; `ChallengeStreak.onServer`):
    /// at `stopsAt` the agent's writes stop for good, at `suspendsAt` Moltbook suspends the account.
    public struct ChallengeStreakStatus: Sendable, Codable, Equatable {
        public var onServer: Int
        public var stopsAt: Int = ChallengePolicy.safeStreak
        public var suspendsAt: Int = ChallengePolicy.serverThreshold
    }

    public struct AgentStatus: Sendable, Codable, Equatable {
        public var agent: String
        public var classes: [ClassStatus]
        public var pauses: [Pause]
        public var pending: [PendingEntry]
        public var openChallenges: [String]
        /// Content whose verification challenge failed or expired: published unverified (hidden on
        /// moltbook.com), never re-sent as it is (the duplicate guard holds its text).
        public var parked: [Parked] = []
        public var next: [NextOccurrence]
        /// The runner that holds the agent's live lease (issue 23: which runner drives which
        /// agent), since when it holds it, until when, and under which fencing token.
        public var leaseHolder: String?
        public var leaseExpires: Date?
        public var leaseSince: Date? = nil
        public var leaseToken: Int64? = nil
        /// Nil when the engine has stored none (no pass read `/home` or the DM check yet).
        public var inbox: Inbox? = nil
        public var challengeStreak: ChallengeStreakStatus = ChallengeStreakStatus(onServer: 0)
    }

    /// An engine process that recorded a heartbeat: a daemon (a runner of the fleet while its
    /// heartbeat is younger than its lease time) or a cron run.
    public struct RunnerStatus: Sendable, Codable, Equatable {
        public var holder: String
        public var startedAt: Date
        public var lastTick: Date
        /// The agents whose live lease it holds, sorted.
        public var agents: [String]
    }

    public var now: Date
    public var agents: [AgentStatus]
    /// The most recent engine tick of any process, if any.
    public var lastTick: Date?
    /// The live runners, by holder (most recent tick first): every process holding a live lease,
    /// and every daemon whose heartbeat is younger than its lease time (a daemon ticks at least
    /// every half lease time; the default lease time for a heartbeat that does not say its own). A cron run that ended, or a daemon gone for longer, is not a
    /// runner any more (its heartbeat still counts for `last_tick`).
    public var runners: [RunnerStatus] = []

    /// Builds the report from an in-memory copy of the state file (the file is not written).
    public static func load(recipes: [Recipe], statePath: String, now: Date) async throws -> StatusReport {
        let snapshot = try SQLiteStateStore.snapshot(of: statePath)
        return try await make(recipes: recipes, store: snapshot, now: now)
    }

    /// Builds the report from a read-only view of the state at `now`.
    public static func make(recipes: [Recipe], store: any StateStore, now: Date) async throws -> StatusReport {
        let agents = Array(Set(recipes.map(\.agent.value))).sorted()
        var result: [AgentStatus] = []
        var lastTick: Date?
        let (heartbeats, leases) = try await store.read { (try await $0.heartbeats(), try await $0.leases()) }
        lastTick = heartbeats.map(\.lastTick).max()
        let liveLeases = leases.filter { $0.isLive(at: now) }
        let holders = Set(liveLeases.map(\.holder))
        let live = heartbeats.filter { beat in
            holders.contains(beat.holder)
                || beat.isLiveDaemon(at: now, fallback: Runner.Configuration.defaultLeaseTTL)
        }
        let runners = live.map { beat in
            RunnerStatus(
                holder: beat.holder, startedAt: beat.startedAt, lastTick: beat.lastTick,
                agents: liveLeases.filter { $0.holder == beat.holder }.map(\.account).sorted())
        }.sorted { ($0.lastTick, $1.holder) > ($1.lastTick, $0.holder) }
        for agent in agents {
            let own = recipes.filter { $0.agent.value == agent }
            let data = try await store.read { reader in
                var parked: [Parked] = []
                for challenge in try await reader.challenges(account: agent, status: nil, limit: 50)
                where challenge.status == .failed || challenge.status == .expired {
                    var write: PlannedWrite?
                    if let key = challenge.journalKey {
                        // Sent again (the server kept nothing unverified, issue 33): not parked.
                        let next = ChallengedContent.key(key, send: ChallengedContent.sends(key) + 1)
                        if try await reader.journalEntry(key: next) != nil { continue }
                        write = try await reader.journalEntry(key: key)?.payload.flatMap(PlannedWrite.init(payload:))
                    }
                    parked.append(
                        Parked(
                            contentType: challenge.contentType, id: challenge.contentID,
                            status: challenge.status.rawValue, at: challenge.updatedAt,
                            excerpt: write.map {
                                PlannedWrite.excerpt(($0.kind == .post ? $0.title : $0.content) ?? "")
                            }))
                }
                return (
                    try await reader.limiterState(account: agent, key: "limiter"),
                    try await reader.activePauses(account: agent, at: now),
                    try await reader.pendingJournalEntries(account: agent),
                    try await reader.challenges(account: agent, status: .open, limit: 20),
                    parked,
                    try await reader.lease(account: agent),
                    try await InboxSummary.read(account: agent, in: reader),
                    try await ChallengeStreak.onServer(account: agent, in: reader),
                    try await reader.limiterState(account: agent, key: DeferredSteps.stateKey)
                        .flatMap(DeferredSteps.init(stored:))?.items ?? []
                )
            }
            let limiter = data.0.flatMap { try? Limiter(serialized: $0) }
            var classes: [ClassStatus] = []
            if let limiter {
                for limitClass in LimitClass.allCases {
                    // A class without a limit of its own (vote, follow, subscribe) is bound by the
                    // write budget, and by what the server taught (a learned spacing, a hold).
                    let own = limiter.rules[limitClass] != nil
                    let (date, binding) = limiter.earliest(own ? [limitClass] : [limitClass, .write], at: now)
                    let tokens = limiter.tokens(limitClass, at: now)
                    classes.append(
                        ClassStatus(
                            limitClass: limitClass.rawValue,
                            tokens: own ? tokens : min(tokens, limiter.tokens(.write, at: now)),
                            nextAllowed: (date ?? .distantFuture) > now ? date : nil, binding: binding?.description))
                }
            }
            var next: [NextOccurrence] = []
            for recipe in own {
                for job in recipe.jobs {
                    let cursor = try await store.read { try await $0.scheduleCursor(of: recipe, job: job.id.value) }
                    let after = max(cursor ?? now, now)
                    if let occurrence = OccurrencePlanner.nextOccurrence(job.trigger, seed: recipe.seed, after: after) {
                        next.append(NextOccurrence(recipe: recipe.name, job: job.id.value, fire: occurrence.fire))
                    }
                }
            }
            let lease = data.5.flatMap { $0.expiresAt > now ? $0 : nil }
            result.append(
                AgentStatus(
                    agent: agent, classes: classes,
                    pauses: data.1.map { Pause(kind: $0.kind.rawValue, until: $0.until, reason: $0.reason) },
                    pending: data.2.map {
                        PendingEntry(
                            key: $0.key, recipe: own.displayName($0.recipe, job: $0.job), job: $0.job,
                            action: $0.action, state: $0.state.rawValue,
                            nextAttempt: $0.nextAttemptAt, lastError: $0.lastError)
                    }
                        // Reads a limit deferred wait like writes (issue 33, observation 3).
                        + data.8.map {
                            PendingEntry(
                                key: $0.key, recipe: own.displayName($0.recipe, job: $0.job), job: $0.job,
                                action: $0.action, state: "read_deferred",
                                nextAttempt: $0.retryAt, lastError: $0.reason)
                        },
                    openChallenges: data.3.map(\.code), parked: data.4, next: next.sorted { $0.fire < $1.fire },
                    leaseHolder: lease?.holder, leaseExpires: lease?.expiresAt, leaseSince: lease?.acquiredAt,
                    leaseToken: lease?.token, inbox: data.6.map(Inbox.init),
                    challengeStreak: ChallengeStreakStatus(onServer: data.7)))
        }
        return StatusReport(now: now, agents: result, lastTick: lastTick, runners: runners)
    }

    /// Problems that make a container unhealthy: an auth or suspension pause, or no engine tick
    /// for longer than `maxTickAge` seconds. Empty when healthy.
    public func healthProblems(maxTickAge: TimeInterval) -> [String] {
        var problems: [String] = []
        guard let lastTick else { return ["the engine has not ticked yet"] }
        if now.timeIntervalSince(lastTick) > maxTickAge {
            problems.append(
                "last engine tick \(Int(now.timeIntervalSince(lastTick))) s ago (limit \(Int(maxTickAge)) s)")
        }
        for agent in agents {
            for pause in agent.pauses where pause.kind != PauseKind.manual.rawValue {
                problems.append("\(agent.agent) paused (\(pause.kind)): \(pause.reason)")
            }
        }
        return problems
    }

    /// The text form.
    public var text: String {
        var lines: [String] = []
        let iso = { (date: Date) in MoltbookDateText.iso(date) }
        lines.append("state at \(iso(now)); last engine tick \(lastTick.map(iso) ?? "never")")
        if runners.count > 1 || runners.contains(where: { !$0.agents.isEmpty }) {
            lines.append("runners:")
            for runner in runners {
                lines.append(
                    "  \(runner.holder): last tick \(iso(runner.lastTick)), \(runner.agents.count) agent"
                        + (runner.agents.count == 1 ? "" : "s") + " held")
            }
        }
        for agent in agents {
            lines.append("")
            let since = agent.leaseSince.map { " since \(iso($0))" } ?? ""
            lines.append("agent \(agent.agent)" + (agent.leaseHolder.map { " (held by \($0)\(since))" } ?? ""))
            for pause in agent.pauses {
                lines.append(
                    "  PAUSED \(pause.kind) until \(pause.until.map(iso) ?? "lifted by hand"): \(pause.reason)")
            }
            if let inbox = agent.inbox { lines += inbox.lines }
            for status in agent.classes {
                let next = status.nextAllowed.map { "next \(iso($0)) — \(status.binding ?? "")" } ?? "ready"
                lines.append(
                    "  \(status.limitClass.padding(toLength: 9, withPad: " ", startingAt: 0)) \(status.tokens) left, \(next)"
                )
            }
            for entry in agent.pending {
                lines.append(
                    "  pending \(entry.action) [\(entry.state)] \(entry.recipe)/\(entry.job)"
                        + (entry.nextAttempt.map { " at \(iso($0))" } ?? "")
                        + (entry.lastError.map { " — \($0)" } ?? ""))
            }
            for code in agent.openChallenges { lines.append("  open verification challenge \(code)") }
            let streak = agent.challengeStreak
            if streak.onServer > 0 {
                lines.append(
                    "  \(streak.onServer) verification challenges failed in a row on the server's count: the agent "
                        + "stops for good at \(streak.stopsAt); Moltbook suspends at \(streak.suspendsAt)")
            }
            for parked in agent.parked {
                lines.append(
                    "  parked \(parked.contentType) \(parked.excerpt.map { "\"\($0)\"" } ?? parked.id ?? "?"): "
                        + "verification \(parked.status) \(iso(parked.at)); unverified, never re-sent as it is")
            }
            for occurrence in agent.next {
                lines.append("  next \(occurrence.recipe)/\(occurrence.job) at \(iso(occurrence.fire))")
            }
        }
        return lines.joined(separator: "\n")
    }
}
