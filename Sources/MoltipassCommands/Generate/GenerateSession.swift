import Foundation
import Generation
import Logging
import MoltbookAPI
import MoltipassEngine
import Recipes
import Storage

/// `moltipass generate RECIPE --step JOB/STEP [--target POST_ID]` (issue 21): runs one step's
/// generator once with the context the runner would give it, and says what the checks make of
/// the text, so an operator can tune a prompt before trusting it.
///
/// The request is the runner's own (`GenerationTrial`, `GenerationRequest.make`) for an
/// occurrence at `now`, first attempt, with the recipe's environment whitelist and the agent's
/// recent texts from the state file when there is one (read from a snapshot; a missing file is
/// not created). The post a comment answers (a selector step's `--target`, or the post the recipe
/// names with a reply's thread, as the runner reads them) is read through the agent's key with
/// GET only (`ReadOnlyTransport`): nothing is ever written to Moltbook or to the state.
public struct GenerateSession: Sendable {
    public let recipe: Recipe
    /// `JOB/STEP` as given: the job's id and the step's number, from 1.
    public let step: String
    /// `--target`: the post a selector step's comment answers.
    public let target: String?
    public let statePath: String?
    /// The keychain: the agent's key (to read a target post) and model keys (`key:`).
    public let keys: KeysSession?
    public let environment: [String: String]
    /// Makes the transport of the Moltbook client that reads the target (GET only above it).
    var network: @Sendable (URL) throws -> any HTTPTransport = { url in
        let loopback = url.host.map(URLPolicy.isLoopback(host:)) ?? false
        return try CurlTransport(configuration: .init(policy: URLPolicy(allowInsecureLoopback: loopback)))
    }

    public init(
        recipe: Recipe, step: String, target: String?, statePath: String?, keys: KeysSession?,
        environment: [String: String]
    ) {
        self.recipe = recipe
        self.step = step
        self.target = target
        self.statePath = statePath
        self.keys = keys
        self.environment = environment
    }

    static let quiet = Logger(label: "moltipass.generate") { _ in SwiftLogNoOpLogHandler() }

    /// Tries the step at `now`. Throws `GenerateProblem` for what the operator must change.
    public func run(now: Date) async throws -> GenerateReport {
        let (job, index) = try findStep()
        guard let trial = GenerationTrial(recipe: recipe, job: job, step: index, now: now, environment: environment)
        else {
            throw GenerateProblem(
                .usage, "step \(index + 1) of job `\(job.id.value)` has no `generate:`; \(generatedSteps(job))")
        }
        let target = try await readTarget(for: trial)
        let history = try await readHistory(now: now)
        guard let write = trial.write(target: target.post),
            let request = trial.request(
                for: write, recentTitles: history?.recentTitles ?? [], thread: target.thread)
        else {
            throw GenerateProblem(.failure, "step \(index + 1) of job `\(job.id.value)` planned no write to generate")
        }
        let service = GenerationService(
            mode: .wait, environment: environment, transport: Self.modelTransport(for: trial.spec),
            logger: Self.quiet, keys: ModelKeyProvider.make(keys: keys))
        let answer = await service.generate(request)
        return GenerateReport(
            trial: trial, write: write, request: request, target: target, history: history, statePath: statePath,
            answer: answer)
    }

    /// The job and the step's index that `JOB/STEP` names, or why none.
    func findStep() throws -> (Job, Int) {
        let file = (recipe.file as NSString).lastPathComponent
        let jobs = recipe.jobs.map { "`\($0.id.value)`" }.joined(separator: ", ")
        guard let slash = step.lastIndex(of: "/") else {
            throw GenerateProblem(
                .usage,
                "--step takes JOB/STEP, the job's id and the step's number from 1 (like `replies/1`); "
                    + "the jobs of \(file): \(jobs)")
        }
        let jobID = String(step[..<slash])
        let number = String(step[step.index(after: slash)...])
        guard let job = recipe.jobs.first(where: { $0.id.value == jobID }) else {
            throw GenerateProblem(.usage, "\(file) has no job `\(jobID)`; its jobs: \(jobs)")
        }
        guard let value = Int(number), job.steps.indices.contains(value - 1) else {
            throw GenerateProblem(
                .usage, "job `\(jobID)` has no step `\(number)`; its steps, numbered from 1: \(steps(of: job))")
        }
        return (job, value - 1)
    }

    /// The generator of step `index`, if it has one.
    func generator(of job: Job, _ index: Int) -> GeneratorSpec? {
        GenerationTrial(recipe: recipe, job: job, step: index, now: .distantPast, environment: [:])?.spec
    }

    /// `1 post (generate: command), 2 vote`.
    func steps(of job: Job) -> String {
        job.steps.enumerated().map { index, step in
            "\(index + 1) \(step.action.keyword)"
                + (generator(of: job, index).map { " (generate: \($0.kindName))" } ?? "")
        }.joined(separator: ", ")
    }

    func generatedSteps(_ job: Job) -> String {
        let numbers = job.steps.indices.filter { generator(of: job, $0) != nil }
        return numbers.isEmpty
            ? "the job has no step with `generate:`"
            : "its steps with `generate:`: " + numbers.map { "`\(job.id.value)/\($0 + 1)`" }.joined(separator: ", ")
    }

    /// What the step's comment answers, as read for its context.
    struct TargetRead {
        var post: Post?
        /// A comment on a named post: the post and a reply's chain of comments.
        var thread: GenerationThread?
        /// A selector step: whether its selector would pick the post now.
        var selectorPicks: Bool?
        /// Why a named post could not be read (then, as in the runner, the context has no post).
        var unread: String?
    }

    /// The post the step's comment answers: a selector step's `--target` (an error when it
    /// cannot be read), or the post the recipe names with a reply's thread (read when the
    /// keychain gives the agent's key, as the runner does; else the report says why not).
    func readTarget(for trial: GenerationTrial) async throws -> TargetRead {
        let number = "step \(trial.step + 1)"
        switch trial.target {
        case .none:
            if target != nil {
                throw GenerateProblem(.usage, "\(number) writes a post, which answers no post; leave out --target")
            }
            return TargetRead()
        case .named(let post, let replyTo):
            if let target, target != post {
                throw GenerateProblem(
                    .usage,
                    "\(number) comments on post \(post), named by the recipe; --target is for steps that select "
                        + "their posts (`on:`)")
            }
            do {
                let thread = try await readThread(post, replyTo: replyTo)
                return TargetRead(post: thread.post, thread: thread)
            } catch let problem as GenerateProblem {
                return TargetRead(unread: problem.message)
            }
        case .selected:
            guard let target, !target.isEmpty else {
                throw GenerateProblem(
                    .usage,
                    "\(number) comments on the posts its selector picks: pass --target POST_ID to try it on one")
            }
            let thread = try await readThread(target, replyTo: nil)
            return TargetRead(post: thread.post, selectorPicks: thread.post.map(trial.selectorPicks))
        }
    }

    /// Post `id` and, for a reply to `replyTo`, the comments from the thread's top down to it,
    /// read through the agent's key with GET only (as `AccountPass.readThread`).
    func readThread(_ id: String, replyTo: String?) async throws -> GenerationThread {
        let client = try await client(reading: id)
        do {
            let detail = try await client.post(id: id).value
            guard let replyTo else { return GenerationThread(post: detail.post, chain: []) }
            let comments =
                detail.commentsIncluded
                ? detail.comments : try await client.comments(postID: id, sort: .new, limit: 100).value.items
            return GenerationThread(post: detail.post, chain: GenerationThread.chain(to: replyTo, in: comments))
        } catch {
            if error.code == .notFound {
                throw GenerateProblem(.usage, "there is no post \(id) on \(client.baseURL.absoluteString)")
            }
            throw GenerateProblem(ErrorReporting.exitStatus(for: error), "could not read post \(id): \(error)")
        }
    }

    /// The agent's client, behind a guard that sends GET requests only.
    func client(reading id: String) async throws -> MoltbookClient {
        let agent = recipe.agent.value
        guard let keys else {
            throw GenerateProblem(
                .keychain,
                "reading post \(id) needs \(agent)'s key, and there is no keychain: pass --keychain PATH "
                    + "or set MOLTIPASS_KEYCHAIN")
        }
        do {
            return try await LiveClients(keys: keys, network: network, logger: Self.quiet)
                .client(agent: agent, baseURL: recipe.baseURL?.value)
        } catch {
            throw GenerateProblem(
                ErrorReporting.exitStatus(for: error),
                "reading post \(id) needs \(agent)'s key from the keychain, which could not give it: \(error)")
        }
    }

    /// The agent's texts in the state file, or nil when there is no file (it is not created).
    func readHistory(now: Date) async throws -> ContentHistory? {
        guard let statePath else { return nil }
        let target = StateTarget(statePath, environment: ProcessInfo.processInfo.environment)
        guard try target.exists() else { return nil }
        let snapshot = try await target.readOnly()
        defer { Task { await StateTarget.close(snapshot) } }
        return try await ContentHistory.read(
            from: snapshot, agent: recipe.agent.value, window: recipe.duplicateWindow, now: now)
    }

    /// A transport for an `openai:` generator (as `run`'s): https, or http to loopback; no
    /// redirects; answers up to 2 MiB. None for a command.
    static func modelTransport(for spec: GeneratorSpec) -> (any HTTPTransport)? {
        guard case .openAI = spec.source else { return nil }
        return ModelTransport.make()
    }
}

/// Why `moltipass generate` could not try the step: what to change, and the exit status.
public struct GenerateProblem: Error, Sendable, CustomStringConvertible {
    public var status: ExitStatus
    public var message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { message }
}
