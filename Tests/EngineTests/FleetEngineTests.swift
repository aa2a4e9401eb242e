import Foundation
import Logging
import MoltbookAPI
import MoltipassEngine
import MoltipassTesting
import Recipes
import Storage
import Synchronization
import Testing

/// Three daemons on one state (in process, one virtual clock): the agents are spread over them,
/// one dies and its agents are taken over after the lease time, a fourth joins and gets its
/// share, and every hourly post is sent exactly once throughout.
@Suite("Fleet: daemons sharing one state")
struct FleetEngineTests {
    /// 2026-03-02T00:00:00Z.
    static let t0 = Date(timeIntervalSince1970: 1_772_409_600)
    static let agents = (1...9).map { "fleet_\($0)" }
    static let ttl: TimeInterval = 600

    /// `agent`'s recipe: a post every hour, titled with the agent and the time.
    static func hourly(_ agent: String, in world: EngineWorld) throws -> Recipe {
        try world.recipe(
            "\(agent).yaml",
            """
            agent: \(agent)
            time_zone: UTC
            jobs:
              - id: hourly
                schedule: { every: 1h }
                steps:
                  - post: { submolt: general, title: "\(agent) {{ date: HH:mm }}", content: "Hourly note." }
            """)
    }

    @Test func spreadTakeoverAndJoin() async throws {
        let world = try EngineWorld(start: Self.t0.addingTimeInterval(-2 * 86_400))
        defer { world.remove() }
        let reader = try await world.register("fleet_reader")
        var recipes = [Recipe]()
        for agent in Self.agents {
            try await world.register(agent)
            recipes.append(try Self.hourly(agent, in: world))
        }
        func daemon(_ name: String) -> Runner {
            world.runner(recipes, holder: "daemon-\(name)-0000@fleet") { configuration in
                configuration.releaseLeases = false
                configuration.spreadAgents = true
                configuration.leaseTTL = Self.ttl
            }
        }
        var live = ["1": daemon("1"), "2": daemon("2"), "3": daemon("3")]
        let step: TimeInterval = 120
        let deathAt = Self.t0.addingTimeInterval(2 * 3_600)
        let joinAt = Self.t0.addingTimeInterval(4 * 3_600)
        let end = Self.t0.addingTimeInterval(6 * 3_600)
        var lastDriver: [String: (runner: String, at: Date)] = [:]
        var takenOverAt: Date?
        var deadAgents: Set<String> = []
        var now = Self.t0
        while now < end {
            world.clock.set(now)
            if now >= deathAt, let dead = live.removeValue(forKey: "3") {
                _ = dead
                deadAgents = Set(lastDriver.filter { $0.value.runner == "3" }.keys)
            }
            if now >= joinAt, live["4"] == nil { live["4"] = daemon("4") }
            var drivenNow: [String: String] = [:]
            for (name, runner) in live.sorted(by: { $0.key < $1.key }) {
                let report = await runner.pass(now: now)
                let view = try #require(report.fleet)
                for agent in view.driven where !report.locked.contains(agent) {
                    #expect(
                        drivenNow[agent] == nil, "\(agent) driven by \(drivenNow[agent] ?? "") and \(name) at \(now)")
                    drivenNow[agent] = name
                    lastDriver[agent] = (name, now)
                }
                // Settled (no runner just came or went): no runner over ⌈9 / live⌉.
                let settled =
                    now.timeIntervalSince(Self.t0) > Self.ttl
                    && abs(now.timeIntervalSince(deathAt)) > 2 * Self.ttl
                    && abs(now.timeIntervalSince(joinAt)) > Self.ttl
                if settled {
                    let cap = (Self.agents.count + live.count - 1) / live.count
                    #expect(view.driven.count <= cap, "\(name) drives \(view.driven) at \(now)")
                    #expect(view.runners.count == live.count, "\(view.runners) at \(now)")
                }
            }
            if !deadAgents.isEmpty, takenOverAt == nil, deadAgents.allSatisfy({ drivenNow[$0] != nil }) {
                takenOverAt = now
            }
            if now.timeIntervalSince(Self.t0) > Self.ttl, abs(now.timeIntervalSince(deathAt)) > 2 * Self.ttl {
                #expect(
                    Set(drivenNow.keys) == Set(Self.agents),
                    "undriven at \(now): \(Set(Self.agents).subtracting(drivenNow.keys))")
            }
            now = now.addingTimeInterval(step)
        }
        // The dead runner's agents came to the others within the lease time (plus one tick).
        #expect(!deadAgents.isEmpty)
        let takeover = try #require(takenOverAt).timeIntervalSince(deathAt)
        #expect(takeover <= Self.ttl + step, "took \(takeover) s")
        // The fourth runner got a share.
        #expect(lastDriver.values.contains { $0.runner == "4" })
        // Every hourly post exactly once: 6 per agent, no title twice.
        world.clock.set(end)
        for agent in Self.agents {
            let titles = try await world.titles(of: agent, reader: reader)
            #expect(titles.count == 6 && Set(titles).count == 6, "\(agent): \(titles)")
        }
    }

    /// A fleet runner that cannot read the fleet's facts (the state does not answer) drives no
    /// agent that pass, instead of waiting out the store's deadline for each in turn; it counts
    /// a transient failure and passes again a minute later.
    @Test func aRunnerThatCannotReadTheFleetDrivesNoAgent() async throws {
        let world = try EngineWorld(start: Self.t0)
        defer { world.remove() }
        let recipes = try Self.agents.map { try Self.hourly($0, in: world) }
        let store = RunTelemetryTests.CutOffStore(MemoryStateStore())
        store.cut.withLock { $0 = true }
        var configuration = Runner.Configuration(holder: "daemon-cut-0000@fleet")
        configuration.spreadAgents = true
        configuration.releaseLeases = false
        let clients = Mutex(0)
        let runner = Runner(
            recipes: recipes, store: store, configuration: configuration,
            logger: Logger(label: "fleet-test") { _ in SwiftLogNoOpLogHandler() }
        ) { _, _ in
            clients.withLock { $0 += 1 }
            throw HarnessError("no agent is driven while the state does not answer")
        }
        let report = await runner.pass(now: Self.t0)
        #expect(report.items.isEmpty, "\(report.items)")
        #expect(report.transientFailures == 1)
        #expect(report.nextDue == Self.t0.addingTimeInterval(60))
        #expect(clients.withLock { $0 } == 0)
    }

    /// A pass whose store stops answering (here before it begins; mid-pass in a real partition):
    /// the first agent's turn fails, the store is found unreachable, and the pass ends there
    /// instead of letting every remaining agent wait out the deadline; it passes again a minute
    /// later. The same runner over a store that answers drives every agent.
    @Test func aPassEndsWhenTheStoreStopsAnswering() async throws {
        let world = try EngineWorld(start: Self.t0)
        defer { world.remove() }
        let recipes = try Self.agents.map { try Self.hourly($0, in: world) }
        let store = RunTelemetryTests.CutOffStore(MemoryStateStore())
        store.cut.withLock { $0 = true }
        let clients = Mutex(0)
        let runner = Runner(
            recipes: recipes, store: store, configuration: Runner.Configuration(holder: "once-cut"),
            logger: Logger(label: "fleet-test") { _ in SwiftLogNoOpLogHandler() }
        ) { _, _ in
            clients.withLock { $0 += 1 }
            throw HarnessError("no client is made while the state does not answer")
        }
        let report = await runner.pass(now: Self.t0)
        #expect(report.transientFailures == 2, "the first agent's turn, then the pass itself")
        #expect(report.nextDue == Self.t0.addingTimeInterval(60))
        #expect(clients.withLock { $0 } == 0)

        store.cut.withLock { $0 = false }
        _ = await runner.pass(now: Self.t0)
        #expect(clients.withLock { $0 } == Self.agents.count, "every agent driven (its client refused)")
    }

    /// A daemon asked to stop (SIGTERM) ends its pass after the agent whose turn is running: the
    /// others are not driven (a pod's grace period is not spent on a pass over hundreds of agents).
    /// Without the request every agent posts.
    @Test func aPassAskedToStopEndsAfterTheCurrentAgent() async throws {
        for asked in [true, false] {
            let world = try EngineWorld(start: Self.t0.addingTimeInterval(-2 * 86_400))
            defer { world.remove() }
            let agents = Array(Self.agents.prefix(3))
            var recipes = [Recipe]()
            for agent in agents {
                try await world.register(agent)
                recipes.append(try Self.hourly(agent, in: world))
            }
            world.clock.set(Self.t0)
            let stop = Mutex(false)
            // SIGTERM arrives while the first agent's post is on its way.
            let transport = LeaseFenceTests.TakeoverTransport(
                inner: world.transport, afterSending: true, trigger: LeaseFenceTests.isPost
            ) { if asked { stop.withLock { $0 = true } } }
            let runner = world.runner(recipes, transport: transport) { configuration in
                configuration.stopRequested = { stop.withLock { $0 } }
            }
            let report = await runner.pass(now: Self.t0)
            let posted = Set(report.items.filter { $0.outcome == .done }.map(\.agent))
            #expect(posted == (asked ? [agents[0]] : Set(agents)), "asked \(asked): \(report.items)")
        }
    }
}
