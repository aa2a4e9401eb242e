import Determinism
import Foundation
import Storage

/// Many daemons on one state (issue 23): which runner drives which agent.
///
/// Every daemon records a heartbeat at the start of each pass; the live runners are the daemons
/// whose heartbeat is younger than the lease time. Each daemon computes the same assignment from
/// the same facts (the agents of its recipes, the live runners), drives its own agents, hands
/// over at once the ones it holds but no longer owns (released at the start of a pass: never in
/// the middle of one), and leaves the others alone. The lease, not the assignment, is what keeps
/// one runner per agent: two runners that briefly disagree (a heartbeat seen live by one and
/// stale by the other) race for the lease, and one of them wins.
///
/// `run --once` does not spread: a cron run drives every agent whose lease it can take.
public enum FleetAssignment {
    /// Bounded-load rendezvous hashing: agents in name order, each to its highest-weighted runner
    /// that has fewer than ⌈agents / runners⌉. No runner gets more than that; a runner joining or
    /// leaving moves few agents (the weights of the others do not change). Deterministic: every
    /// runner that knows the same agents and runners computes the same map.
    public static func assign(agents: [String], runners: [String]) -> [String: String] {
        let runners = Array(Set(runners)).sorted()
        guard !runners.isEmpty else { return [:] }
        let agents = Array(Set(agents)).sorted()
        let cap = (agents.count + runners.count - 1) / runners.count
        var load = [String: Int](minimumCapacity: runners.count)
        var owner = [String: String](minimumCapacity: agents.count)
        for agent in agents {
            let ranked = runners.sorted { weight(agent, $0) > weight(agent, $1) }
            guard let chosen = ranked.first(where: { load[$0, default: 0] < cap }) else { continue }
            owner[agent] = chosen
            load[chosen, default: 0] += 1
        }
        return owner
    }

    /// The weight of (`agent`, `runner`): FNV-1a over both names, through SplitMix64 (stable
    /// across processes and builds; Swift's `Hasher` is seeded per process).
    static func weight(_ agent: String, _ runner: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in agent.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        hash = (hash ^ 0) &* 0x0000_0100_0000_01b3
        for byte in runner.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        var random = SeededRandom(seed: hash)
        return random.next()
    }
}

/// What a daemon's pass decided about the fleet, for the report, the log and the metrics.
public struct FleetView: Sendable, Equatable, Codable {
    /// The live runners (daemons), this one included, sorted.
    public var runners: [String] = []
    /// The agents this runner drives this pass (its own, and orphans it took), sorted.
    public var driven: [String] = []
    /// Agents this runner held and handed over (the assignment gave them to another runner).
    public var handedOver: [String] = []
    /// Agents that nobody drove for longer than the lease time, taken by this runner although
    /// the assignment names another (a runner whose recipes lack the agent, one that is stuck).
    public var orphansTaken: [String] = []

    public init() {}
}

extension Runner {
    /// Which of `agents` this runner drives in the pass at `now` (all of them when it does not
    /// spread), after handing over the ones it holds and no longer owns. Records this runner's
    /// heartbeat first (a daemon that drives nothing is still a live runner). Any store failure:
    /// every agent, as without a fleet (the leases still keep one runner per agent).
    func agentsToDrive(now: Date, report: inout RunReport) async -> [String] {
        guard configuration.spreadAgents else { return agents }
        let (holder, ttl) = (configuration.holder, configuration.leaseTTL)
        let heartbeat = Heartbeat(holder: holder, startedAt: startedAt, lastTick: now, detail: "runner", leaseTime: ttl)
        let facts: ([Heartbeat], [Lease])
        do {
            facts = try await store.transaction { transaction in
                try await transaction.recordHeartbeat(heartbeat)
                return (try await transaction.heartbeats(), try await transaction.leases())
            }
        } catch {
            // No agent this pass: each would meet the same store, and wait out its deadline in
            // turn (a runner cut off from PostgreSQL spent a pass of minutes, its SIGTERM unheard,
            // on agents it could not record anything for). The next pass, a minute on, tries again.
            logger.error("state store failed reading the fleet", metadata: ["error": "\(error)"])
            report.transientFailures += 1
            report.due(at: now.addingTimeInterval(60))
            return []
        }
        let (heartbeats, leases) = facts
        let live = Set(
            heartbeats.filter { $0.holder == holder || $0.isLiveDaemon(at: now, fallback: ttl) }.map(\.holder))
        let owners = FleetAssignment.assign(agents: agents, runners: Array(live))
        let leaseOf = Dictionary(leases.map { ($0.account, $0) }, uniquingKeysWith: { first, _ in first })
        var view = FleetView()
        view.runners = live.sorted()
        var drive: [String] = []
        for agent in agents {
            let lease = leaseOf[agent]
            let heldLive = lease.map { $0.isLive(at: now) } ?? false
            if owners[agent] == holder {
                drive.append(agent)
                unheld.withLock { $0[agent] = nil }
                // Wake when another runner's lease on it runs out (a dead runner's agents).
                if let lease, heldLive, lease.holder != holder { report.due(at: lease.expiresAt) }
                continue
            }
            if let lease, lease.holder == holder {
                // Handed over at the start of a pass, never in the middle of one.
                if (try? await store.releaseLease(account: agent, holder: holder)) == true {
                    view.handedOver.append(agent)
                    logger.info(
                        "handed the agent over to the runner the fleet assigns it to",
                        metadata: [
                            "agent": "\(agent)", "event": "lease_handed_over", "to": "\(owners[agent] ?? "?")",
                        ])
                }
                continue
            }
            if heldLive {
                unheld.withLock { $0[agent] = nil }
                continue
            }
            // Nobody drives it: its owner may not know it (other recipes) or be stuck. Taken after
            // a full lease time of seeing it so, never at once (its owner is about to take it).
            let since = unheld.withLock { seen in
                if seen[agent] == nil { seen[agent] = now }
                return seen[agent]!
            }
            if now.timeIntervalSince(since) >= ttl {
                drive.append(agent)
                view.orphansTaken.append(agent)
                logger.warning(
                    "took an agent no runner drove for the lease time",
                    metadata: ["agent": "\(agent)", "event": "orphan_taken", "owner": "\(owners[agent] ?? "?")"])
            } else {
                report.due(at: since.addingTimeInterval(ttl))
            }
        }
        // Wake when another runner would be found dead (its agents then come to the live ones).
        for beat in heartbeats where beat.holder != holder && live.contains(beat.holder) {
            report.due(at: beat.lastTick.addingTimeInterval(ttl))
        }
        view.driven = drive.sorted()
        report.fleet = view
        return drive
    }
}
