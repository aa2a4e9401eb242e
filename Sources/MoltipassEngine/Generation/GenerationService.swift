import Foundation
import Generation
import Logging
import MoltbookAPI
import Recipes

/// The real generators of a run (issue 21): runs a `command:` program or asks an `openai:`
/// server, and keeps each answer until its write is journaled.
///
/// Two modes:
/// - `.background` (the daemon and `run --once`): a request starts its generation and is
///   answered `.pending`; when the text is ready, `onReady` wakes the daemon, whose next pass gets
///   the text at once (`run --once` waits with `waitUntilIdle()` and passes again). A hanging
///   generator so holds up only its own job, never the agent's other jobs or other agents
///   (passes are sequential).
/// - `.wait` (`plan --generate`, `moltipass generate`): a request waits for its answer.
///
/// Bounds: one generation at a time per job (its writes wait for each other, never for another
/// job's), at most `concurrency` at once per runner, so a few hanging generators hold up only
/// their own jobs; an `openai:` server gets at
/// most `requestsPerMinute` requests a minute (its own limiter class, `generate`), a failure
/// worth retrying (a connection refused, a 5xx, a 429 with its `Retry-After`) is retried twice
/// within the step's timeout. An answer is kept an hour at most when its write is never
/// journaled (a refused or failed text).
public actor GenerationService: TextGenerating {
    public enum Mode: Sendable {
        case wait
        case background
    }

    /// The key of a model server, from the keychain or a file (`moltipass keys add --model`).
    public typealias KeyProvider = @Sendable (GeneratorSpec.KeySource) async throws -> APIKey

    public static let concurrency = 8
    public static let requestsPerMinute = 20
    static let keepFor: Duration = .seconds(3_600)

    let mode: Mode
    let environment: [String: String]
    let keys: KeyProvider
    let transport: (any HTTPTransport)?
    let logger: Logger
    let onReady: @Sendable () -> Void

    private var answers: [String: (answer: GenerationAnswer, at: ContinuousClock.Instant)] = [:]
    private var running: [String: Task<GenerationAnswer, Never>] = [:]
    private var slots = 0
    private var slotWaiters: [CheckedContinuation<Void, Never>] = []
    /// Jobs (`agent job`) with a generation running, and the generations of each waiting for it.
    private var busyJobs: Set<String> = []
    private var jobWaiters: [String: [CheckedContinuation<Void, Never>]] = [:]
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private var calls: [String: [ContinuousClock.Instant]] = [:]
    /// Programs between taking their slot and their answer.
    private var programs = 0
    private var stopping = false

    public init(
        mode: Mode, environment: [String: String], transport: (any HTTPTransport)?, logger: Logger,
        keys: @escaping KeyProvider, onReady: @escaping @Sendable () -> Void = {}
    ) {
        self.mode = mode
        self.environment = environment
        self.transport = transport
        self.logger = logger
        self.keys = keys
        self.onReady = onReady
    }

    public func generate(_ request: GenerationRequest) async -> GenerationAnswer {
        forgetOld()
        let key = request.attemptKey
        if let done = answers[key] { return done.answer }
        if let task = running[key] {
            return mode == .wait ? await task.value : .pending
        }
        let task = Task { await self.produce(request) }
        running[key] = task
        switch mode {
        case .wait:
            return await task.value
        case .background:
            return .pending
        }
    }

    public func journaled(keys: [String]) {
        let done = Set(keys)
        answers = answers.filter { !done.contains(String($0.key.prefix { $0 != "#" })) }
    }

    /// Whether no generation is running.
    public var isIdle: Bool { running.isEmpty }

    /// Returns when no generation is running (`run --once` before its next pass).
    public func waitUntilIdle() async {
        guard !running.isEmpty else { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    /// Stops for good (a daemon told to stop): no program starts from now on, and the running ones are ended
    /// (SIGTERM to each one's process group, SIGKILL 2 s later), so none outlives the runner. Their answers are
    /// failures that are never journaled. Requests to model servers are left to end with the process.
    public func stop() async {
        stopping = true
        let deadline = ContinuousClock.now + .seconds(10)
        while programs > 0, ContinuousClock.now < deadline {
            await RunningGenerators.stop()
            if programs > 0 { try? await Task.sleep(for: .milliseconds(20)) }
        }
    }

    // MARK: Running one

    private func produce(_ request: GenerationRequest) async -> GenerationAnswer {
        // A model server's request budget is waited for before taking a slot: a call waiting
        // for its server never holds up a program or another server.
        if case .openAI(let endpoint) = request.spec.source {
            let wait = admitCall(to: URL(string: endpoint.baseURL.value)?.host ?? "")
            if wait >= .seconds(request.spec.timeoutSeconds) {
                let answer = GenerationAnswer.failed(
                    reason: "the model server's request budget (\(Self.requestsPerMinute)/min) is spent")
                finish(request, answer)
                return answer
            }
            if wait > .zero { try? await Task.sleep(for: wait) }
        }
        let lane = "\(request.agent) \(request.job)"
        await acquireLane(lane)
        await acquireSlot()
        let isProgram = if case .command = request.spec.source { true } else { false }
        let answer: GenerationAnswer
        if stopping {
            answer = .failed(reason: "Moltipass is stopping")
        } else {
            if isProgram { programs += 1 }
            answer = await Self.run(request, environment: environment, transport: transport, keys: keys) {
                await self.admitCall(to: $0)
            }
            if isProgram { programs -= 1 }
        }
        releaseSlot()
        releaseLane(lane)
        finish(request, answer)
        return answer
    }

    /// Waits until no other generation of the job runs (a job's lane).
    private func acquireLane(_ lane: String) async {
        if busyJobs.insert(lane).inserted { return }
        await withCheckedContinuation { jobWaiters[lane, default: []].append($0) }
    }

    private func releaseLane(_ lane: String) {
        if var waiters = jobWaiters[lane], !waiters.isEmpty {
            let next = waiters.removeFirst()
            jobWaiters[lane] = waiters.isEmpty ? nil : waiters
            next.resume()
        } else {
            busyJobs.remove(lane)
        }
    }

    private func finish(_ request: GenerationRequest, _ answer: GenerationAnswer) {
        let key = request.attemptKey
        running[key] = nil
        answers[key] = (answer, .now)
        // `recipe` and `job` apart, as the report lines log them.
        let (recipe, job) = request.job.split(separator: "/", maxSplits: 1).map(String.init).pair
        var metadata: Logger.Metadata = [
            "agent": "\(request.agent)", "recipe": "\(recipe)", "job": "\(job)",
            "generator": "\(request.spec.kindName)", "attempt": "\(request.attempt)",
        ]
        switch answer {
        case .text(let text):
            metadata["bytes"] = "\(text.content.utf8.count + (text.title?.utf8.count ?? 0))"
            logger.info("text generated", metadata: metadata)
        case .skip(let reason):
            metadata["why"] = "\(reason)"
            logger.info("generator skipped", metadata: metadata)
        case .failed(let reason):
            metadata["why"] = "\(reason)"
            logger.warning("generation failed", metadata: metadata)
        case .pending:
            break
        }
        if mode == .background { onReady() }
        if running.isEmpty {
            let waiters = idleWaiters
            idleWaiters = []
            for waiter in waiters { waiter.resume() }
        }
    }

    private func forgetOld() {
        let now = ContinuousClock.now
        answers = answers.filter { now - $0.value.at < Self.keepFor }
    }

    private func acquireSlot() async {
        if slots < Self.concurrency {
            slots += 1
            return
        }
        await withCheckedContinuation { slotWaiters.append($0) }
    }

    private func releaseSlot() {
        if slotWaiters.isEmpty {
            slots -= 1
        } else {
            slotWaiters.removeFirst().resume()
        }
    }

    /// The `generate` limiter class: how long to wait before the next request to `host`.
    private func admitCall(to host: String) -> Duration {
        let now = ContinuousClock.now
        var recent = (calls[host] ?? []).filter { now - $0 < .seconds(60) }
        var wait = Duration.zero
        if recent.count >= Self.requestsPerMinute, let oldest = recent.first {
            wait = oldest + .seconds(60) - now
        }
        recent.append(now + wait)
        calls[host] = recent
        return wait
    }
}

extension Array where Element == String {
    /// The first two elements (`recipe/job` split at its slash); the second empty when missing.
    fileprivate var pair: (String, String) { (first ?? "", count > 1 ? self[1] : "") }
}
