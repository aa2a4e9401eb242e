import ArgumentParser
import Foundation
import MoltipassCommands
import MoltipassEngine
import MoltipassPlan
import Synchronization

/// `moltipass plan RECIPE… --for 7d`: the engine on a virtual clock against a simulated Moltbook;
/// `--live`: the engine's selection against the real server, reads only.
struct Plan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Simulate what recipes will do over a horizon, without network and without writing the state.",
        discussion: """
            Runs the same engine as `run` on a virtual clock against an in-process simulated Moltbook, \
            starting from a copy of the state file (from an empty state when --from is in the future, \
            unless --from-state). Prints a timeline and a summary (--json: the schema in docs/plan.md; \
            --html FILE: a page with a timeline chart). --live instead reads the real feeds through the API \
            (GET only, keychain unlocked) and shows what the selectors pick now and what would be sent. \
            Text a generator writes (generate:) is a placeholder that shows where it goes and its context's \
            size; --generate runs the programs and calls the model servers for real, once per generated write \
            (they may charge: use a short --for), the keychain unlocked first when a recipe names a model key \
            (key:). Nothing is sent to Moltbook either way and the state file is only read. \
            Exit 0; 10 when a row has an outcome --fail-on names; 64 wrong command line (checked before \
            simulating, output paths included); 65 invalid recipe; --live, and --generate with a keychain \
            model key: the keychain's code as `run`.
            """)

    @Argument(help: "Recipe files.")
    var recipes: [String]

    @Option(name: .customLong("for"), help: "How long to simulate: 7d, 12h, 90m.")
    var horizon = "7d"

    @Option(help: "The simulated start, ISO-8601 (default: now).")
    var from: String?

    @Flag(help: "With --from in the future: start from a copy of the state file anyway (default: an empty state).")
    var fromState = false

    @Option(help: "Seed for the simulated server, feed and faults.")
    var seed: UInt64 = 1

    @Option(
        help: "The state database to copy (default: $MOLTIPASS_STATE, else $XDG_STATE_HOME/moltipass/state.sqlite).")
    var state: String?

    @Option(help: "The time zone of every row (default: the recipes' zone, or UTC when they differ).")
    var tz: String?

    @Flag(help: "Print the result as JSON on stdout.")
    var json = false

    @Option(help: "Also write a self-contained HTML page with a timeline chart.")
    var html: String?

    @Option(
        help: ArgumentHelp(
            "Exit 10 when a row has one of these outcomes: a comma list of deferred, skipped, failed, uncertain.",
            valueName: "outcomes"))
    var failOn: String?

    @Option(help: "The simulated server's limits: strict, default, loose, or a JSON file.")
    var serverProfile = "default"

    @Option(help: "Probability (0 to 1) of a verification challenge per post or comment.")
    var challengeRate: Double = 0

    @Option(help: "Probability (0 to 1) of a transient fault (5xx, dropped connection) per request.")
    var faultRate: Double = 0

    @Flag(help: "Simulate agents in their first 24 hours (stricter limits).")
    var newAgent = false

    @Option(
        help:
            "Other agents the simulated server plays, who comment, reply, mention and write DMs (default: 3 when a recipe answers with reply: or dm:, else 0)."
    )
    var simulatedAgents: Int?

    @Flag(help: "The simulated server refuses repeated content and suspends for it, as moltbook.com does.")
    var enforceDuplicates = false

    @Option(help: "Feed fixture (JSON) instead of the seeded feed generator.")
    var feed: String?

    @Option(help: "Explain one job (JOB or RECIPE/JOB): occurrence, limiter, outcome.")
    var explain: String?

    @Flag(help: "Read the real feeds and state (GET only, keychain unlocked): what the selectors pick now.")
    var live = false

    @Flag(
        help: """
            Run the generators for real (programs run, model servers are called and may charge) instead of \
            placeholder texts. Still no Moltbook writes; the state file is only read.
            """)
    var generate = false

    @OptionGroup var keys: KeysOptions

    /// The instant "now" stands for (tests); the wall clock otherwise.
    @Option(help: .hidden)
    var now: String?

    /// Seconds of simulation before the progress line appears on a terminal (tests: 0).
    @Option(help: .hidden)
    var progressAfter: Double = 1

    func validate() throws {
        if recipes.isEmpty { throw ValidationError("give at least one recipe file") }
        if PlanOptions.duration(horizon) == nil { throw ValidationError("--for takes a duration such as 7d, 12h, 90m") }
        if let from, ISO8601DateFormatter().date(from: from) == nil { throw ValidationError("--from takes ISO-8601") }
        if let now, NowOption.instant(now) == nil { throw ValidationError(NowOption.problem) }
        if !(0...1).contains(challengeRate) { throw ValidationError("--challenge-rate is between 0 and 1") }
        if !(0...1).contains(faultRate) { throw ValidationError("--fault-rate is between 0 and 1") }
        do {
            if let failOn { _ = try PlanFailOn(parsing: failOn) }
            _ = try PlanDisplayZone.choose(flag: tz, recipeZones: [])
        } catch let error as PlanError {
            throw ValidationError(error.description)
        }
        if let html, let problem = PlanOutputPath.problem(html, flag: "--html") { throw ValidationError(problem) }
        if live, html != nil || explain != nil || from != nil || fromState || feed != nil {
            throw ValidationError(
                "--live shows what would happen now against the real server; --html, --explain, --from, "
                    + "--from-state and --feed are for simulations")
        }
    }

    func run() async throws {
        try await reportingFailures { try await execute() }
    }

    func execute() async throws -> ExitStatus {
        do {
            let environment = ProcessInfo.processInfo.environment
            let loaded = RunSession.loadRecipes(self.recipes)
            if case .failure(let diagnostics) = loaded {
                printError(diagnostics.sorted().description)
                return .invalidRecipe
            }
            guard case .success(let recipes) = loaded else { return .invalidRecipe }
            let wallNow = try NowOption.resolve(now)
            let display = try PlanDisplayZone.choose(flag: tz, recipes: recipes)
            let failOn = try failOn.map(PlanFailOn.init(parsing:))
            let statePath = StateLocation.path(flag: state, environment: environment)
            // One keychain for --live and --generate: unlocked once.
            let keychain = live ? try keys.session() : nil
            let generator: any TextGenerating =
                generate
                ? try await PlanGeneration.service(
                    recipes: recipes, environment: environment, keys: { try keychain ?? keys.session() })
                : PlaceholderGenerator()
            if let keychain {
                var session = PlanLive(
                    recipes: recipes, statePath: statePath, keys: keychain, environment: environment)
                session.generator = generator
                let result = try await session.run(now: wallNow)
                if json {
                    FileHandle.standardOutput.write(try result.json())
                    FileHandle.standardOutput.write(Data("\n".utf8))
                } else {
                    print(result.text(zone: display))
                }
                if let findings = failOn?.findings(in: result), !findings.isEmpty {
                    printError(PlanFailOn.message(findings))
                    return .planFindings
                }
                return .ok
            }
            let start = from.flatMap { ISO8601DateFormatter().date(from: $0) } ?? wallNow
            var options = PlanOptions(start: start, horizon: PlanOptions.duration(horizon) ?? 7 * 86_400)
            options.seed = seed
            options.challengeRate = challengeRate
            options.faultRate = faultRate
            options.newAgent = newAgent
            options.enforceDuplicates = enforceDuplicates
            if let simulatedAgents {
                guard (0...1_000).contains(simulatedAgents) else {
                    printError("moltipass: --simulated-agents takes 0 to 1000")
                    return .usage
                }
                options.simulatedAgents = simulatedAgents
            }
            do {
                options.serverProfile = try PlanServerProfile.named(serverProfile)
                if let feed { options.feed = try PlanFeed.load(path: feed) }
            } catch let error as PlanError {
                printError("moltipass: \(error)")
                return .usage
            }
            var copied = statePath
            if start > wallNow, !fromState, let path = statePath, FileManager.default.fileExists(atPath: path) {
                copied = nil
                options.stateSkipped =
                    "--from is in the future: started from an empty state, not a copy of \(path) (--from-state copies it)"
            }
            var simulation = PlanSimulation(recipes: recipes, options: options, statePath: copied)
            simulation.environment = environment
            simulation.generator = generator
            let progress = ProgressLine(
                PlanProgress(start: options.start, end: options.end, zone: display.zone), after: progressAfter)
            if let progress { simulation.progress = { @Sendable instant in progress.show(instant) } }
            let result = try await simulation.run()
            progress?.clear()
            if let html { try PlanOutputPath.write(result.html(zone: display), to: html, flag: "--html") }
            if let explain {
                guard let text = result.explain(job: explain, zone: display) else {
                    printError("moltipass: no job \(explain) did anything in the simulated horizon")
                    return .usage
                }
                print(text)
            } else if json {
                FileHandle.standardOutput.write(try result.json())
                FileHandle.standardOutput.write(Data("\n".utf8))
            } else {
                let colour = environment["NO_COLOR"] == nil && isatty(1) == 1
                print(result.text(colour: colour, zone: display))
            }
            if let failOn {
                let findings = failOn.findings(in: result)
                if !findings.isEmpty {
                    printError(PlanFailOn.message(findings))
                    return .planFindings
                }
            }
            return .ok
        } catch let error as PlanError {
            printError("moltipass: \(error)")
            return .usage
        }
    }
}

/// The single updating progress line on stderr, when stderr is a terminal: shown once the
/// simulation has run `after` seconds, redrawn at most five times a second, cleared at the end.
final class ProgressLine: Sendable {
    private let progress: PlanProgress
    private let after: Double
    private let started = ContinuousClock.now
    private let state = Mutex<(shown: Bool, last: ContinuousClock.Instant?)>((false, nil))

    /// Nil when stderr is not a terminal.
    init?(_ progress: PlanProgress, after: Double) {
        guard isatty(2) == 1 else { return nil }
        self.progress = progress
        self.after = after
    }

    func show(_ instant: Date) {
        let now = ContinuousClock.now
        guard started.duration(to: now) >= .milliseconds(Int(after * 1000)) else { return }
        let due = state.withLock { state in
            if let last = state.last, last.duration(to: now) < .milliseconds(200) { return false }
            state = (true, now)
            return true
        }
        if due { FileHandle.standardError.write(Data(("\r\u{1B}[K" + progress.line(at: instant)).utf8)) }
    }

    func clear() {
        if state.withLock({ $0.shown }) { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
