import Determinism
import Foundation
import Logging
import MoltbookAPI
import MoltbookSandbox
import MoltipassEngine
import Synchronization

/// The simulated Moltbook of one plan: the sandbox model on a virtual clock, reached through
/// the in-process transport, with the plan's agents and the other agents of the feed registered.
final class PlanWorld: Sendable {
    static let baseURL = URL(string: "http://127.0.0.1/api/v1")!
    static let builtInSubmolts: Set<String> = ["general", "introductions", "agents"]

    let model: SandboxModel
    let transport: PlanTransport
    private let now: SettableClock
    private let keys = Mutex<[String: APIKey]>([:])
    private let clients = Mutex<[String: MoltbookClient]>([:])
    /// Challenges the simulated solver answered, by agent.
    let solved = Mutex<[String: Int]>([:])
    /// When each agent was registered (its `created_at`: which limits the server applies).
    let created = Mutex<[String: Date]>([:])
    /// The feed's posts as published (id → title and author), to name the targets of votes
    /// and comments in the timeline.
    let published = Mutex<[String: PlanResult.PostRef]>([:])

    init(options: PlanOptions, meter: PassCostMeter? = nil, answering: [String] = []) {
        var config = SandboxConfig(
            limits: options.serverProfile.limits, newAgentLimits: options.serverProfile.newAgentLimits,
            autoClaim: true, challengeRate: options.challengeRate)
        // Conversations to answer: simulated agents that talk to the agents whose recipes answer.
        let simulated = options.simulatedAgents ?? (answering.isEmpty ? 0 : PlanOptions.defaultSimulatedAgents)
        if simulated > 0 { config.simulation = SandboxSimulation(agents: simulated, targets: answering) }
        config.requireClaim = true
        config.enforceDuplicates = options.enforceDuplicates
        let model = SandboxModel(config: config, seed: options.seed)
        let clock = SettableClock(fixed: options.start)
        now = clock
        self.model = model
        let inner = InProcessSandboxTransport(model: model, handsOverTrees: !options.serializedBodies) { clock.now }
        transport = PlanTransport(inner: inner, faultRate: options.faultRate, seed: options.seed, meter: meter) {
            clock.now
        }
    }

    var clock: Date { now.now }

    /// Moves the virtual clock (the sandbox's and the engine's: the transport reads this one).
    func set(_ date: Date) { now.set(date) }

    func client(_ key: APIKey?) throws -> MoltbookClient {
        try MoltbookClient(
            baseURL: Self.baseURL, apiKey: key, transport: transport, allowLoopback: true,
            logger: Logger(label: "moltipass.plan.api") { _ in SwiftLogNoOpLogHandler() })
    }

    /// The client of a registered agent: made once (it is stateless), not once per pass.
    func client(agent: String) throws -> MoltbookClient {
        if let made = clients.withLock({ $0[agent] }) { return made }
        guard let key = keys.withLock({ $0[agent] }) else { throw PlanError("no simulated agent \(agent)") }
        let made = try client(key)
        clients.withLock { $0[agent] = made }
        return made
    }

    /// Registers `name` at `instant` (its `created_at`); `tracked` agents' requests are tallied.
    func register(_ name: String, at instant: Date, tracked: Bool) async throws {
        set(instant)
        let key = try await client(nil).register(name: name, description: "simulated by moltipass plan").value.apiKey
        keys.withLock { $0[name] = key }
        created.withLock { $0[name] = instant }
        if tracked { transport.register(key: key, agent: name) }
    }

    /// Creates a submolt at `instant` as `owner`.
    func createSubmolt(_ name: String, owner: String, at instant: Date) async throws {
        set(instant)
        let created = try await client(agent: owner).createSubmolt(
            NewSubmolt(name: name, displayName: name, description: "Simulated m/\(name)"))
        if let challenge = created.value.challenge {
            try await answer(code: challenge.code, client: client(agent: owner))
        }
    }

    /// Posts a feed item at its instant, by its author or, while the author cools down, the next one.
    func publish(_ post: PlanFeed.Post, at instant: Date, authors: [String]) async {
        set(instant)
        let first = authors.firstIndex(of: post.author) ?? 0
        for offset in 0..<max(authors.count, 1) {
            let author = authors.isEmpty ? post.author : authors[(first + offset) % authors.count]
            guard let client = try? client(agent: author) else { continue }
            do {
                let created = try await client.createPost(
                    .text(submolt: post.submolt, title: post.title, content: post.content))
                if let id = created.value.item?.id {
                    published.withLock { $0[id] = PlanResult.PostRef(title: post.title, author: author) }
                }
                if let challenge = created.value.challenge {
                    _ = try? await answer(code: challenge.code, client: client)
                }
                return
            } catch {
                if error.code != .rateLimited { return }
            }
        }
    }

    /// The simulated solver: the sandbox's own expected answer, sent through `/verify`.
    @discardableResult
    func answer(code: String, client: MoltbookClient) async throws -> Bool {
        guard let answer = model.expectedAnswer(forVerificationCode: code) else { return false }
        if case .verified = try await client.verify(code: code, answer: answer).value { return true }
        return false
    }
}
