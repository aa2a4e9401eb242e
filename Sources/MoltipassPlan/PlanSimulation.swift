import Foundation
import Logging
import MoltbookAPI
import MoltipassEngine
import RateLimiting
import Recipes
import Storage

/// `moltipass plan`: the very same engine (`Runner.pass(now:)`) driven on a virtual clock
/// against an in-process simulated Moltbook, starting from a copy of the real state.
///
/// Side-effect free (architecture invariant 5): the real state file is only read, through
/// `SQLiteStateStore.snapshot(of:)`; the transport never opens a socket; nothing reads the
/// wall clock (the start is a parameter); every random choice comes from `options.seed`.
public struct PlanSimulation: Sendable {
    public let recipes: [Recipe]
    public let options: PlanOptions
    /// The real state file to start from; nil or missing: an empty state.
    public let statePath: String?
    public var environment: [String: String] = [:]
    public var logger = Logger(label: "moltipass.plan") { _ in SwiftLogNoOpLogHandler() }
    /// Called with the simulated instant before each pass (a progress line on a terminal).
    /// The callee decides how often to show it; nothing here reads a clock.
    public var progress: (@Sendable (Date) -> Void)?
    /// Measures where the passes' time goes (benchmarks only; `PassCostMeter`).
    public var meter: PassCostMeter?
    /// Writes the text of `generate:` steps: a placeholder by default, the real generators
    /// with `plan --generate` (a `GenerationService` that waits for each answer).
    public var generator: any TextGenerating = PlaceholderGenerator()

    public init(recipes: [Recipe], options: PlanOptions, statePath: String?) {
        self.recipes = recipes
        self.options = options
        self.statePath = statePath
    }

    /// Simulates `options.horizon` from `options.start`.
    public func run() async throws -> PlanResult {
        // A state file this user cannot even look for is an error, not an empty state.
        let copied = try statePath.map { try SQLiteStateStore.stateFileExists($0) } ?? false
        // The copy lives in plain values (MemoryStateStore): a month of passes against SQLite,
        // even in memory, spends most of its time compiling statements and decoding rows.
        let base: MemoryStateStore =
            if let statePath, copied {
                try await Self.offload { try SQLiteStateStore.snapshot(of: statePath) }.memoryCopy()
            } else {
                MemoryStateStore()
            }
        let store = RecordingStateStore(inner: base)
        let world = PlanWorld(
            options: options, meter: meter, answering: Array(Set(recipes.filter(\.answers).map(\.agent.value))).sorted()
        )
        let engineStore: any StateStore = meter.map { MeteredStateStore(inner: store, meter: $0) } ?? store
        let needs = PlanFeed.Needs(recipes: recipes)
        let feed =
            options.feed
            ?? PlanFeed.generate(
                needs: needs, start: options.start, end: options.end, seed: options.seed,
                perHour: options.feedPostsPerHour)
        let agents = Array(Set(recipes.map(\.agent.value))).sorted()
        let authors = Set(PlanFeed.generatedAuthors(needs) + feed.posts.map(\.author)).subtracting(agents).sorted()
        try await setUp(world: world, agents: agents, authors: authors, needs: needs, feed: feed)

        var collector = PlanCollector(store: store, world: world)
        var runners: [String: Runner] = [:]
        var next: [String: Date] = [:]
        for agent in agents {
            var configuration = Runner.Configuration(holder: "plan")
            configuration.checksServer = false
            configuration.refreshesServerRecord = false
            configuration.environment = environment
            configuration.meter = meter
            configuration.generator = generator
            runners[agent] = Runner(
                recipes: recipes.filter { $0.agent.value == agent }, store: engineStore, configuration: configuration,
                logger: logger
            ) { agent, _ in try world.client(agent: agent) }
            next[agent] = options.start
        }
        let posts = feed.posts.map { ($0.instant(start: options.start), $0) }.filter { $0.0 >= options.start }
            .sorted { $0.0 < $1.0 }
        var feedIndex = 0
        var passes = 0
        while passes < options.maxPasses,
            let (agent, instant) = next.min(by: { ($0.value, $0.key) < ($1.value, $1.key) }), instant < options.end
        {
            while feedIndex < posts.count, posts[feedIndex].0 <= instant {
                await world.publish(posts[feedIndex].1, at: posts[feedIndex].0, authors: authors)
                feedIndex += 1
            }
            world.set(instant)
            progress?(instant)
            let report = await runners[agent]!.pass(now: instant)
            passes += 1
            var again = report.nextDue
            if await collector.collect(report, at: instant) { again = instant.addingTimeInterval(1) }
            if let again {
                next[agent] = max(again, instant.addingTimeInterval(1))
            } else {
                next[agent] = nil
            }
        }
        return collector.result(
            recipes: recipes, options: options, feed: feed,
            feedDescription: options.feed == nil ? "generated" : "fixture",
            stateCopied: copied, passes: passes)
    }

    /// Registers every agent, creates the submolts the recipes name, publishes the feed's past.
    func setUp(world: PlanWorld, agents: [String], authors: [String], needs: PlanFeed.Needs, feed: PlanFeed)
        async throws
    {
        let earliestFeed = feed.posts.map { $0.instant(start: options.start) }.min() ?? options.start
        var instant = min(options.start.addingTimeInterval(-30 * 86_400), earliestFeed.addingTimeInterval(-2 * 86_400))
        for author in authors {
            instant = instant.addingTimeInterval(1)
            try await world.register(author, at: instant, tracked: false)
        }
        // Owners are established (older than a day) and create one submolt per cooldown.
        instant = instant.addingTimeInterval(86_400)
        let wanted = Set(needs.submolts + feed.posts.map(\.submolt)).subtracting(PlanWorld.builtInSubmolts).sorted()
        for (index, submolt) in wanted.enumerated() {
            instant = instant.addingTimeInterval(7_201)
            try await world.createSubmolt(submolt, owner: authors[index % max(authors.count, 1)], at: instant)
        }
        let age: TimeInterval = options.newAgent ? 3_600 : 25 * 3_600
        var past: [(Date, PlanFeed.Post?)] = feed.posts.map { ($0.instant(start: options.start), $0) }
            .filter { $0.0 < options.start }
        for offset in agents.indices {
            past.append((options.start.addingTimeInterval(-age + Double(offset) * 0.001), nil))
        }
        var registered = 0
        for (at, post) in past.sorted(by: { $0.0 < $1.0 }) {
            if let post {
                await world.publish(post, at: at, authors: authors)
            } else {
                try await world.register(agents[registered], at: at, tracked: true)
                registered += 1
            }
        }
    }

    /// Runs blocking work (the SQLite backup) off Swift's cooperative pool.
    package static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Result { try work() }) }
        }
    }
}
