import Foundation
import Logging
import MoltbookAPI
import MoltipassEngine
import MoltipassPlan
import Recipes
import Storage
import Synchronization

/// `moltipass plan --live`: the engine's own pass, against the real server, reading only.
///
/// For each job, one pass of `Runner` (the engine `run` uses) at the job's instant: now when an
/// occurrence is due, else its next occurrence. Selectors read the real feeds through the
/// agent's key (GET, through the engine's read limiter, from the state's ledger); every write
/// is refused by `ReadOnlyTransport` before the network and shown as what would be sent. The
/// engine works on an in-memory copy of the state file (read-only open): the real state is
/// never written.
public struct PlanLive: Sendable {
    public let recipes: [Recipe]
    public let statePath: String?
    public let keys: KeysSession
    public var environment: [String: String]
    public var logger = Logger(label: "moltipass.plan.live") { _ in SwiftLogNoOpLogHandler() }
    /// Writes the text of `generate:` steps: a placeholder by default, the real generators with
    /// `plan --live --generate` (`PlanGeneration`).
    public var generator: any TextGenerating = PlaceholderGenerator()
    /// Makes the transport a client's requests go through (before the read-only guard): libcurl
    /// for the base URL by default.
    var network: @Sendable (URL) throws -> any HTTPTransport = { url in
        let loopback = url.host.map(URLPolicy.isLoopback(host:)) ?? false
        return try CurlTransport(configuration: .init(policy: URLPolicy(allowInsecureLoopback: loopback)))
    }

    public init(recipes: [Recipe], statePath: String?, keys: KeysSession, environment: [String: String]) {
        self.recipes = recipes
        self.statePath = statePath
        self.keys = keys
        self.environment = environment
    }

    /// One read-only pass per job, at `now` or the job's next occurrence after it.
    public func run(now: Date) async throws -> PlanLiveResult {
        let copied = statePath.map { FileManager.default.fileExists(atPath: $0) } ?? false
        let base: MemoryStateStore =
            if let statePath, copied {
                try await PlanSimulation.offload { try SQLiteStateStore.snapshot(of: statePath) }.memoryCopy()
            } else {
                MemoryStateStore()
            }
        let store = RecordingStateStore(inner: base)
        let clients = LiveClients(keys: keys, network: network, logger: logger)
        // Every agent's key first: a keychain that cannot be opened fails here, with its own
        // error and exit status, before anything is read.
        for recipe in recipes {
            _ = try await clients.client(agent: recipe.agent.value, baseURL: recipe.baseURL?.value)
        }

        var jobs: [PlanLiveResult.Job] = []
        var passes: [(at: Date, recipe: Recipe)] = []
        for recipe in recipes {
            for job in recipe.jobs {
                let jobID = job.id.value
                let cursor = try? await store.read { try await $0.scheduleCursor(of: recipe, job: jobID) }
                let planned = OccurrencePlanner.plan(
                    trigger: job.trigger, seed: recipe.seed, cursor: cursor ?? nil, lastTick: cursor ?? nil, now: now)
                let at: Date?
                if !planned.due.isEmpty {
                    at = now
                } else {
                    at = planned.next?.fire
                }
                jobs.append(
                    PlanLiveResult.Job(
                        agent: recipe.agent.value, recipe: recipe.name, job: jobID, at: at, dueNow: at == now))
                guard let at else { continue }
                var single = recipe
                single.jobs = [job]
                passes.append((at, single))
            }
        }
        var rows: [PlanLiveResult.Row] = []
        var shown: [String: String] = [:]
        var paused: [String: Date] = [:]
        var authBroken: [String: String] = [:]
        for (at, recipe) in passes.sorted(by: { $0.at < $1.at }) {
            var configuration = Runner.Configuration(holder: "plan-live")
            configuration.environment = environment
            configuration.isDeadHolder = { _ in true }
            configuration.journalRetention = nil
            configuration.knownRecipes = recipes
            configuration.generator = generator
            let runner = Runner(recipes: [recipe], store: store, configuration: configuration, logger: logger) {
                agent, baseURL in try await clients.client(agent: agent, baseURL: baseURL)
            }
            let agent = recipe.agent.value
            let refusedBefore = clients.refused(agent).count
            let report = await runner.pass(now: at)
            if let message = report.keychainFailures.values.first { throw PlanLiveError.keychain(message) }
            let refused = clients.refused(agent)
            var next = refusedBefore
            for item in report.items {
                var request: String?
                var outcome = item.outcome.rawValue
                var reason = item.reason
                // The engine words a deferral found in the journal "deferred by R" and a fresh one "R".
                if let text = reason, text.hasPrefix("deferred by ") { reason = String(text.dropFirst(12)) }
                if item.outcome == .failed, (item.reason ?? "").contains(ReadOnlyTransport.marker) {
                    outcome = PlanLiveResult.wouldSend
                    if next < refused.count {
                        request = "\(refused[next].method) \(refused[next].path)"
                        next += 1
                    }
                    reason = nil
                }
                // A pending write is drained again by a later job's pass: shown again only when
                // what would happen to it changed.
                let unchanged = "\(outcome)|\(reason ?? "")|\(item.until.map { "\($0.timeIntervalSince1970)" } ?? "")"
                if let key = item.key, shown[key] == unchanged { continue }
                if let key = item.key { shown[key] = unchanged }
                let intent = await item.key.asyncMap(store.knownIntent(key:))
                let write = item.action == "verify" ? nil : intent?.write
                rows.append(
                    PlanLiveResult.Row(
                        time: at, agent: item.agent, recipe: item.recipe, job: item.job,
                        action: write?.kind.rawValue ?? item.action, summary: item.action, target: write?.target,
                        submolt: write?.submolt, title: write?.title,
                        excerpt: write?.content.map { PlannedWrite.excerpt($0, limit: 80) }, outcome: outcome,
                        reason: reason, until: item.until, request: request, key: item.key))
            }
            paused.merge(report.paused) { max($0, $1) }
            authBroken.merge(report.authBroken) { first, _ in first }
        }
        let known = clients.knownPosts
        rows = rows.map { row in
            guard let target = row.target, PlanCollector.targetsPost(row.action), let post = known[target] else {
                return row
            }
            var named = row
            named.targetTitle = post.title
            named.targetAuthor = post.author
            return named
        }
        return PlanLiveResult(
            now: now, stateCopied: copied, jobs: jobs, rows: rows, reads: clients.reads,
            writesRefused: clients.refusedCount, paused: paused, authBroken: authBroken)
    }
}

/// Why `plan --live` could not run.
public enum PlanLiveError: Error, CustomStringConvertible {
    case keychain(String)

    public var description: String {
        switch self {
        case .keychain(let message): "the keychain could not give a key: \(message)"
        }
    }
}

/// The agents' clients of one `--live` plan: the key read from the keychain once per agent,
/// every client behind one read-only guard per base URL.
final class LiveClients: Sendable {
    let keys: KeysSession
    let network: @Sendable (URL) throws -> any HTTPTransport
    let logger: Logger
    private let made = Mutex<[String: MoltbookClient]>([:])
    private let guards = Mutex<[String: ReadOnlyTransport]>([:])

    init(keys: KeysSession, network: @escaping @Sendable (URL) throws -> any HTTPTransport, logger: Logger) {
        self.keys = keys
        self.network = network
        self.logger = logger
    }

    func client(agent: String, baseURL: String?) async throws -> MoltbookClient {
        if let client = made.withLock({ $0[agent] }) { return client }
        let (entry, key) = try keys.entryAndKey(agent)
        let url = try KeysEndpoint.checkedBaseURL(baseURL ?? entry.metadata.baseURL)
        let readOnly = ReadOnlyTransport(inner: try network(url))
        let client = try MoltbookClient(
            baseURL: url, apiKey: key, transport: readOnly,
            allowLoopback: url.host.map(URLPolicy.isLoopback(host:)) ?? false, logger: logger)
        guards.withLock { $0[agent] = readOnly }
        made.withLock { $0[agent] = client }
        return client
    }

    /// The writes refused for `agent`, in order.
    func refused(_ agent: String) -> [ReadOnlyTransport.Refused] {
        guards.withLock { $0[agent] }?.refusedRequests ?? []
    }
    var refusedCount: Int { guards.withLock { $0 }.values.map(\.refusedRequests.count).reduce(0, +) }
    var reads: Int { guards.withLock { $0 }.values.map(\.readCount).reduce(0, +) }
    var knownPosts: [String: PlanResult.PostRef] {
        guards.withLock { $0 }.values.reduce(into: [:]) { $0.merge($1.knownPosts) { _, new in new } }
    }
}
