import ArgumentParser
import Foundation
import MoltbookAPI
import MoltipassCommands
import MoltipassEngine

/// `moltipass generate RECIPE --step JOB/STEP [--target POST_ID]`: one generator run with the
/// context the runner would give it, the text and what the checks say. No Moltbook write.
struct Generate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run one step's generator once and show the text and what the checks say of it.",
        discussion: """
            Builds the request the runner would send for the step (an occurrence now, the first attempt, the \
            recipe's env whitelist, the agent's recent titles from the state file when there is one), runs the \
            command or asks the openai server once, and prints the context, the rendered system message and \
            prompt (openai), the text, and each check: fields, length limits, secret scan, deny-list, and the \
            duplicate guard against the state (not checked without a state file). The post a comment answers \
            is read with the agent's key from the keychain, GET only: a step that selects its posts (on:) \
            needs --target POST_ID; a post the recipe names (and a reply's thread) is read when the keychain \
            opens, else the report says why not. Nothing is sent to Moltbook and the state is never written. Exit 0 the text passes every check; \
            15 a check refused it; 16 the generator skipped the occurrence (exit code 3 of a command); 17 the \
            generator failed; 12 keychain; 64 usage (no such job or step, a step without generate:, --target \
            missing or not applicable); 65 invalid recipe.
            """)

    @Argument(help: "The recipe file.")
    var recipe: String

    @Option(
        help: ArgumentHelp(
            "The step to try: the job's id and the step's number in the job, from 1 (replies/2).",
            valueName: "job/step"))
    var step: String

    @Option(
        help: ArgumentHelp(
            "The post a selector step's comment answers (read from Moltbook with GET).", valueName: "post-id"))
    var target: String?

    @Option(help: "The state database (default: $MOLTIPASS_STATE, else $XDG_STATE_HOME/moltipass/state.sqlite).")
    var state: String?

    @Flag(help: "Print one JSON object on stdout.")
    var json = false

    @OptionGroup var keys: KeysOptions

    /// The instant "now" stands for (tests); the wall clock otherwise.
    @Option(help: .hidden)
    var now: String?

    func validate() throws {
        if let now, NowOption.instant(now) == nil { throw ValidationError(NowOption.problem) }
    }

    func run() async throws {
        try await reportingFailures { try await execute() }
    }

    func execute() async throws -> ExitStatus {
        let environment = ProcessInfo.processInfo.environment
        let loaded = RunSession.loadRecipes([recipe])
        if case .failure(let diagnostics) = loaded {
            printError(diagnostics.sorted().description)
            return .invalidRecipe
        }
        guard case .success(let recipes) = loaded, recipes.count == 1, let recipe = recipes.first else {
            throw ValidationError("give one recipe file")
        }
        let session = GenerateSession(
            recipe: recipe, step: step, target: target,
            statePath: StateLocation.path(flag: state, environment: environment), keys: try? keys.session(),
            environment: environment)
        let report: GenerateReport
        do {
            report = try await session.run(now: try NowOption.resolve(now))
        } catch let problem as GenerateProblem {
            printError("moltipass: \(problem.message)")
            return problem.status
        }
        // The context and the reasons carry what servers and programs said: through the one redactor (issue 34).
        print(Redactor.redact(json ? try report.json() : report.text))
        return report.status
    }
}
