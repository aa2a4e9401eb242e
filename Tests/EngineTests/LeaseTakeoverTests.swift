import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan
import MoltipassTesting
import Storage
import Testing

/// A lease left by a process that no longer exists (a run killed by SIGKILL or the OOM killer)
/// is taken over at once; any other holder's lease is waited out.
@Suite("Leases of dead processes")
struct LeaseTakeoverTests {
    /// 2026-03-02T00:00:00Z.
    static let t0 = Date(timeIntervalSince1970: 1_772_409_600)

    /// The PID of a process that has exited and been reaped.
    static func deadPID() async throws -> Int32 {
        let result = try await ProcessRunner.runSystem("/bin/sh", ["-c", "echo $$"])
        return try #require(Int32(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    @Test func holderNames() async throws {
        let machine = try #require(LeaseHolder.machine, "Linux says who we are through /proc")
        let mine = LeaseHolder.make("once")
        #expect(mine.hasPrefix("once-\(ProcessInfo.processInfo.processIdentifier)-"))
        #expect(mine.hasSuffix("@" + machine))
        #expect(LeaseHolder.make("daemon").hasPrefix("daemon-"))
        #expect(LeaseHolder.make("once") != mine)
    }

    /// Dead means: this machine, this PID namespace, and the kernel says no such process.
    @Test func onlyAGoneLocalProcessIsDead() async throws {
        let machine = try #require(LeaseHolder.machine)
        let dead = try await Self.deadPID()
        #expect(LeaseHolder.isDeadLocalProcess("once-\(dead)-0badc0de@\(machine)"))
        #expect(LeaseHolder.isDeadLocalProcess("daemon-\(dead)-0badc0de@\(machine)"))
        // Alive: this process, PID 1 (exists, even if we may not signal it).
        #expect(!LeaseHolder.isDeadLocalProcess(LeaseHolder.make("once")))
        #expect(!LeaseHolder.isDeadLocalProcess("once-1-0badc0de@\(machine)"))
        // Not decidable here: another machine or PID namespace, older formats, other names.
        #expect(!LeaseHolder.isDeadLocalProcess("once-\(dead)-0badc0de@deadbeef.4026531836"))
        #expect(!LeaseHolder.isDeadLocalProcess("once-\(dead)-0badc0de"))
        for other in [
            "plan", "engine-test", "", "@", "once--x@\(machine)", "once-0-x@\(machine)", "a-b-c-d@\(machine)",
        ] {
            #expect(!LeaseHolder.isDeadLocalProcess(other), "\(other)")
        }
    }

    /// The engine takes a dead process's lease and does what is due; a live holder's lease
    /// keeps the account locked.
    @Test func engineTakesOverOnlyDeadHolders() async throws {
        let machine = try #require(LeaseHolder.machine)
        let world = try EngineWorld(start: Self.t0)
        defer { world.remove() }
        try await world.register("lease_agent")
        let recipe = try world.recipe(
            "lease.yaml",
            """
            agent: lease_agent
            jobs:
              - id: posts
                schedule: { every: 1h }
                steps:
                  - post: { submolt: general, title: "Hourly {{ date: HH:mm }}", content: "x" }
            """)
        let start = Self.t0.addingTimeInterval(25 * 3_600)
        world.clock.set(start)
        let runner = world.runner([recipe], holder: LeaseHolder.make("once"))
        _ = await runner.pass(now: start)  // the first occurrence
        let before = world.model.counters().postsCreated
        #expect(before == 1)

        let live = "once-1-0badc0de@\(machine)"
        let later = start.addingTimeInterval(3_600)
        world.clock.set(later)
        _ = try await world.store.acquireLease(account: "lease_agent", holder: live, now: later, ttl: 600)
        let locked = await runner.pass(now: later)
        #expect(locked.locked == ["lease_agent"])
        #expect(world.model.counters().postsCreated == before)

        let dead = "once-\(try await Self.deadPID())-0badc0de@\(machine)"
        _ = try await world.store.transaction { try await $0.releaseLease(account: "lease_agent", holder: live) }
        _ = try await world.store.acquireLease(account: "lease_agent", holder: dead, now: later, ttl: 600)
        world.clock.set(later.addingTimeInterval(1))
        let taken = await runner.pass(now: later.addingTimeInterval(1))
        #expect(taken.locked.isEmpty)
        #expect(taken.items.contains { $0.outcome == .done }, "\(taken.items)")
        #expect(world.model.counters().postsCreated == before + 1)
        // The pass released the lease it took: nobody holds it now.
        #expect(try await world.store.read { try await $0.lease(account: "lease_agent") } == nil)
    }
}
