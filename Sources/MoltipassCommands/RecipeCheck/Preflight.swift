import Foundation
import Keychain
import Logging
import MoltbookAPI
import MoltipassEngine
import PostgresStorage
import Recipes

/// `moltipass check RECIPE…` (issue 19): the preflight an operator runs after every change, so a
/// mistake shows now, not when a job first comes due hours later. Validates the recipes (and
/// that no two claim one job), checks what each needs on this machine (environment variables,
/// a solver command, its generators' programs, key files and model servers' URLs:
/// `GeneratorChecks`, none of them run or asked), that the state can be written, unlocks the
/// keychain once (the agents' entries and the generators' model keys), and asks the server
/// about every agent with one read each: the key works, the agent is claimed and not
/// suspended. Every problem is listed; nothing is written (the keychain and state included).
public struct Preflight: Sendable {
    /// One agent as the server sees it.
    public struct AgentCheck: Sendable, Codable, Equatable {
        public var agent: String
        /// The base URL asked.
        public var baseURL: String
        /// `works`, `refused`, `missing` (no keychain entry), `unreachable`, `not_checked`.
        public var key: String
        /// The agent's name on the server, when the key works.
        public var serverName: String?
        /// What the server said of the claim, when it said.
        public var claimed: Bool?
    }

    /// The result: every problem and every agent.
    public struct Report: Sendable, Encodable, Equatable {
        public var ok: Bool { problems.isEmpty }
        public var recipes: [String]
        public var agents: [AgentCheck]
        public var problems: [HealthProblem]
        /// What may be wrong but does not stop a run (a generator's `env:` variable not set);
        /// never changes the exit status.
        public var warnings: [HealthProblem] = []

        enum CodingKeys: String, CodingKey { case ok, recipes, agents, problems, warnings }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(ok, forKey: .ok)
            try container.encode(recipes, forKey: .recipes)
            try container.encode(agents, forKey: .agents)
            try container.encode(problems, forKey: .problems)
            try container.encode(warnings, forKey: .warnings)
        }

        init(recipes: [String], agents: [AgentCheck], problems: [HealthProblem], warnings: [HealthProblem] = []) {
            self.recipes = recipes
            self.agents = agents
            self.problems = problems
            self.warnings = warnings
        }

        /// The exit status: 0 when all is well; else the gravest: an invalid recipe or one
        /// that cannot run here (65: an environment variable, a solver, a generator), the
        /// keychain (12: an agent's entry or a model key missing too), a refused, unclaimed or
        /// suspended agent (77), a server that could not be asked (75), anything else (1).
        public var exitStatus: ExitStatus {
            let kinds = Set(problems.map(\.kind))
            if problems.isEmpty { return .ok }
            if !kinds.isDisjoint(with: ["invalid_recipe", "environment", "solver", "generator"]) {
                return .invalidRecipe
            }
            if kinds.contains("keychain") { return .keychain }
            if !kinds.isDisjoint(with: ["key_refused", "unclaimed", "suspended"]) { return .authBroken }
            if kinds.contains("unreachable") { return .transient }
            return .failure
        }
    }

    public let keys: KeysSession
    public let statePath: String?
    public let environment: [String: String]
    public let logger: Logger

    public init(keys: KeysSession, statePath: String?, environment: [String: String], logger: Logger) {
        self.keys = keys
        self.statePath = statePath
        self.environment = environment
        self.logger = logger
    }

    public func run(_ paths: [String]) async -> Report {
        let (recipes, invalid) = RunSession.loadValidRecipes(paths)
        var problems = Daemon.problems(invalid: invalid)
        let (runnable, local) = LocalChecks.split(recipes, environment: environment)
        problems += local
        var warnings: [HealthProblem] = []
        for recipe in recipes {
            let generators = GeneratorChecks.check(recipe, environment: environment)
            problems += generators.problems
            warnings += generators.warnings
        }
        if let statePath, !PostgresLocation.isURL(statePath), let problem = HealthCheck.stateWritability(statePath) {
            problems.append(problem)
        }
        var agents: [AgentCheck] = []
        // Agents and the base URL their first recipe names (as `run` uses it).
        var seen: Set<String> = []
        let targets = recipes.filter { seen.insert($0.agent.value).inserted }
        let contents: KeychainContents?
        do {
            contents = targets.isEmpty ? nil : try keys.store.read()
        } catch {
            contents = nil
            problems.append(
                HealthProblem(
                    kind: "keychain",
                    message: "cannot open the keychain \(keys.path): \(error); "
                        + "no agent was checked with the server"))
        }
        if let contents {
            for recipe in recipes {
                problems += GeneratorChecks.modelKeyProblems(recipe, contents: contents, keychain: keys.path)
            }
        }
        for recipe in targets {
            let agent = recipe.agent.value
            var check = AgentCheck(
                agent: agent, baseURL: recipe.baseURL?.value ?? "", key: "not_checked", serverName: nil, claimed: nil)
            guard let contents else {
                agents.append(check)
                continue
            }
            guard let entry = contents.entry(named: agent), let key = try? contents.key(for: agent) else {
                check.key = "missing"
                problems.append(
                    HealthProblem(
                        kind: "keychain", agent: agent,
                        message: "no keychain entry `\(agent)` in \(keys.path)"
                            + (Suggest.closest(to: agent, among: contents.entries.map(\.name)).map {
                                " (did you mean `\($0)`?)"
                            }
                                ?? "")
                            + "; add it with `moltipass keys add \(agent)` or fix the recipe's `agent:`"))
                agents.append(check)
                continue
            }
            let baseURL = recipe.baseURL?.value ?? entry.metadata.baseURL
            check.baseURL = baseURL ?? MoltbookClient.defaultBaseURL.absoluteString
            do {
                let client = try KeysEndpoint.client(baseURL: baseURL, apiKey: key, logger: logger)
                let me = try await client.me().value
                check.key = "works"
                check.serverName = me.name
                check.claimed = me.claimed
                if check.claimed == nil, let status = try? await client.status().value.state {
                    if case .claimed = status { check.claimed = true }
                    if case .pendingClaim = status { check.claimed = false }
                }
                if check.claimed == false {
                    problems.append(.unclaimed(agent))
                }
            } catch let error as APIError {
                switch error.code {
                case .invalidKey, .authenticationRequired:
                    check.key = "refused"
                    problems.append(
                        HealthProblem(
                            kind: "key_refused", agent: agent,
                            message: "the server refuses the key: \(error.message)"))
                case .notClaimed:
                    check.key = "works"
                    check.claimed = false
                    problems.append(.unclaimed(agent))
                case .suspended:
                    check.key = "works"
                    problems.append(
                        HealthProblem(kind: "suspended", agent: agent, message: "suspended: \(error.message)"))
                default:
                    check.key = "unreachable"
                    problems.append(
                        HealthProblem(
                            kind: "unreachable", agent: agent,
                            message: "could not ask \(check.baseURL) about the agent: \(error.message)"))
                }
            } catch {
                check.key = "unreachable"
                problems.append(
                    HealthProblem(
                        kind: "unreachable", agent: agent, message: "could not ask the server: \(error)"))
            }
            agents.append(check)
        }
        _ = runnable
        return Report(recipes: recipes.map(\.file), agents: agents, problems: problems, warnings: warnings)
    }
}
