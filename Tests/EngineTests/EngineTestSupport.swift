import Foundation
import Logging
import MoltbookAPI
import MoltbookSandbox
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan
import MoltipassTesting
import Recipes
import Storage
import Synchronization
import Testing

/// A sandbox model reached in process on a virtual clock, a state store, and recipe files in a
/// temp directory: everything a `Runner` needs, with no sockets and no keychain.
final class EngineWorld: Sendable {
    static let baseURL = URL(string: "http://127.0.0.1:9/api/v1")!

    let model: SandboxModel
    let clock: SettableClock
    let transport: InProcessSandboxTransport
    let store: SQLiteStateStore
    let directory: TemporaryDirectory
    /// Keys of the agents registered so far, by name.
    private let keys = Mutex<[String: APIKey]>([:])

    init(config: SandboxConfig = SandboxConfig(dialect: TestDialect.current, autoClaim: true), start: Date) throws {
        let clock = SettableClock(fixed: start)
        self.clock = clock
        model = SandboxModel(config: config, seed: 7)
        transport = InProcessSandboxTransport(model: model) { clock.now }
        store = try SQLiteStateStore.inMemory()
        directory = try TemporaryDirectory(prefix: "moltipass-engine")
    }

    func remove() { directory.remove() }

    /// A client through the in-process transport.
    func client(_ key: APIKey? = nil) throws -> MoltbookClient {
        try MoltbookClient(baseURL: Self.baseURL, apiKey: key, transport: transport, allowLoopback: true)
    }

    /// Registers (auto-claimed) `name` at the clock's current instant.
    @discardableResult
    func register(_ name: String) async throws -> MoltbookClient {
        let key = try await client().register(name: name, description: "engine test \(name)").value.apiKey
        keys.withLock { $0[name] = key }
        return try client(key)
    }

    /// Writes `text` to `name` in the temp directory and loads it as a recipe.
    func recipe(_ name: String, _ text: String) throws -> Recipe {
        let path = directory.file(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        switch RecipeLoader.load(path: path) {
        case .success(let recipe): return recipe
        case .failure(let diagnostics): throw HarnessError("recipe \(name): \(diagnostics)")
        }
    }

    /// Writes a content queue of `count` numbered posts to `name`.
    func queue(_ name: String, count: Int, prefix: String = "Queue item") throws {
        let text = (0..<count).map { "- title: \"\(prefix) \($0)\"\n  content: \"Body of item \($0).\"" }
            .joined(separator: "\n")
        try text.write(to: directory.file(name), atomically: true, encoding: .utf8)
    }

    /// A runner over `recipes` whose clients use the registered keys.
    /// Agents in `invalidKeys` get a well-formed key the sandbox never issued.
    func runner(
        _ recipes: [Recipe], holder: String = "engine-test", invalidKeys: Set<String> = [],
        transport: (any HTTPTransport)? = nil, generator: (any TextGenerating)? = nil,
        store: (any StateStore)? = nil, configure: (inout Runner.Configuration) -> Void = { _ in }
    ) -> Runner {
        let transport: any HTTPTransport = transport ?? self.transport
        var known = keys.withLock { $0 }
        for name in invalidKeys { known[name] = APIKey("moltbook_sk_" + String(repeating: "x", count: 32)) }
        let keys = known
        var configuration = Runner.Configuration(holder: holder)
        configuration.generator = generator
        configure(&configuration)
        return Runner(
            recipes: recipes, store: store ?? self.store, configuration: configuration,
            logger: Logger(label: "engine-test") { _ in SwiftLogNoOpLogHandler() }
        ) { agent, _ in
            guard let key = keys[agent] else { throw HarnessError("no key for \(agent)") }
            return try MoltbookClient(baseURL: Self.baseURL, apiKey: key, transport: transport, allowLoopback: true)
        }
    }

    /// Passes at each `nextDue` from the clock's instant until `end` (exclusive); returns the
    /// reports. The clock ends at `end`.
    @discardableResult
    func drive(_ runner: Runner, until end: Date, maxPasses: Int = 50_000) async -> [RunReport] {
        var reports: [RunReport] = []
        while clock.now < end, reports.count < maxPasses {
            let now = clock.now
            let report = await runner.pass(now: now)
            reports.append(report)
            let next = report.nextDue ?? end
            clock.set(min(end, max(next, now.addingTimeInterval(0.001))))
        }
        return reports
    }

    /// The titles of `agent`'s posts, oldest first (the global feed, newest first, reversed),
    /// read by `reader`.
    func titles(of agent: String, reader: MoltbookClient) async throws -> [String] {
        let posts = try await reader.posts(sort: .new, limit: 100).value.items
        return posts.filter { $0.author?.name == agent }.compactMap(\.title).reversed()
    }
}
