import Determinism
import Foundation
import MoltbookAPI
import MoltbookSandbox
import MoltipassEngine
import Synchronization

/// The in-process sandbox transport with what `plan` needs around it: 429s counted per agent
/// and class, and transient faults injected at a seeded rate (`--fault-rate`).
final class PlanTransport: HTTPTransport, Sendable {
    struct Tally: Sendable {
        /// 429s by agent, then class (`post`, `comment`, `vote`, `follow`, `subscribe`, `read`, `write`, `verify`).
        var rateLimited: [String: [String: Int]] = [:]
        /// Faults injected by agent.
        var faults: [String: Int] = [:]
        /// When the simulated server applied each request of an agent, by class (`read` for
        /// GETs; every other request also under `write`): what its limits counted. A request
        /// refused (429, 5xx, a connection dropped before it was applied) is not here.
        var accepted: [String: [String: [Date]]] = [:]
    }

    /// The fault modes `--fault-rate` draws from: errors with no effect and lost connections
    /// whose request was applied (the engine reconciles those by reading back).
    static let faultModes: [FaultMode] = [.http503, .http500, .http502, .drop, .dropBefore]

    let inner: InProcessSandboxTransport
    let faultRate: Double
    private let agentsByKey = Mutex<[String: String]>([:])
    private let dice: Mutex<SeededRandom>
    private let tally = Mutex(Tally())

    private let clock: @Sendable () -> Date

    /// Measures the simulated server's share of a pass (benchmarks only).
    let meter: PassCostMeter?

    init(
        inner: InProcessSandboxTransport, faultRate: Double, seed: UInt64, meter: PassCostMeter? = nil,
        clock: @escaping @Sendable () -> Date
    ) {
        self.inner = inner
        self.meter = meter
        self.clock = clock
        self.faultRate = faultRate
        dice = Mutex(SeededRandom(seed: seed ^ 0xFA17))
    }

    var model: SandboxModel { inner.model }

    func register(key: APIKey, agent: String) {
        key.withRawValue { raw in agentsByKey.withLock { $0["Bearer \(raw)"] = agent } }
    }

    var counts: Tally { tally.withLock { $0 } }

    /// The model's answer (measured when a meter is set).
    private func serve(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let meter else { return try await inner.send(request) }
        return try await meter.measure(.server) { try await inner.send(request) }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let agent = request.headers["Authorization"].flatMap { header in agentsByKey.withLock { $0[header] } }
        let path = request.url.path
        var injected: FaultMode?
        if faultRate > 0, let agent, !path.hasSuffix("/agents/register") {
            injected = dice.withLock { dice in
                dice.unit() < faultRate ? Self.faultModes[dice.index(Self.faultModes.count)] : nil
            }
            if let fault = injected {
                model.injectFaults([FaultSpec(mode: fault, pathPrefix: path, method: request.method.rawValue)])
                tally.withLock { $0.faults[agent, default: 0] += 1 }
            }
        }
        guard let agent else { return try await serve(request) }
        let limitClass = Self.limitClass(method: request.method, path: path)
        let response: HTTPResponse
        // A dropped connection whose request was applied (`drop`) counted at the server unless
        // a limit refused it there.
        let refusedBefore = injected == .drop ? model.counters().rateLimited : 0
        do {
            response = try await serve(request)
        } catch {
            if injected == .drop, model.counters().rateLimited == refusedBefore { accept(agent, limitClass) }
            throw error
        }
        if response.status == 429 {
            tally.withLock { $0.rateLimited[agent, default: [:]][limitClass, default: 0] += 1 }
        } else if (200..<300).contains(response.status) {
            accept(agent, limitClass)
        }
        return response
    }

    /// Notes a request the simulated server applied, at the virtual instant.
    private func accept(_ agent: String, _ limitClass: String) {
        let now = clock()
        tally.withLock { tally in
            tally.accepted[agent, default: [:]][limitClass, default: []].append(now)
            if limitClass != "read" { tally.accepted[agent, default: [:]]["write", default: []].append(now) }
        }
    }

    /// The limit class a request counts against (for the 429 tally): the sandbox's route table
    /// says which endpoint it is (not a path suffix).
    static func limitClass(method: HTTPMethod, path: String) -> String {
        SandboxRouter.limitClass(method: method, path: path)
    }
}
