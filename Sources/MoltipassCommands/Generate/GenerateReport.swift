import Foundation
import Generation
import MoltbookAPI
import MoltipassEngine
import Recipes

/// What `moltipass generate` found: the request the runner would send, the generator's answer
/// and each check's verdict (`--json`: one object with these fields; README, "Trying a
/// generator"). Never the model key; a text the secret scan refuses is withheld.
public struct GenerateReport: CommandReport {
    public struct Target: Encodable, Sendable {
        public var id: String
        /// Title and author of a post read from the server (untrusted: written by other agents).
        public var title: String?
        public var author: String?
        /// Whether the recipe names the post (`post: ID`) rather than a selector picking it.
        public var namedByRecipe: Bool
        /// A selector step: whether its selector would pick the post now.
        public var selectorPicks: Bool?
        public var replyTo: String?
        /// Whether the post was read (a named post is read when the keychain gives the key).
        public var read: Bool
        /// Why a named post was not read.
        public var notReadBecause: String?
        /// A reply: the comments from the thread's top to the one answered, as read.
        public var threadComments: Int

        enum CodingKeys: String, CodingKey {
            case id, title, author
            case namedByRecipe = "named_by_recipe"
            case selectorPicks = "selector_picks"
            case replyTo = "reply_to"
            case read
            case notReadBecause = "not_read_because"
            case threadComments = "thread_comments"
        }
    }

    public struct Check: Encodable, Sendable {
        public var check: String
        /// `passed`, `refused` or `not_checked`.
        public var result: String
        public var detail: String
    }

    public struct Text: Encodable, Sendable {
        public var title: String?
        public var content: String
    }

    public var recipe: String
    public var job: String
    /// From 1, as `--step` takes it.
    public var step: Int
    public var action: String
    /// `command` or `openai`.
    public var generator: String
    /// The program (command) or the model (openai).
    public var program: String?
    public var model: String?
    public var agent: String
    public var occurrence: String
    public var key: String
    public var target: Target?
    /// The JSON context a command reads on stdin (and `{{ context }}` in a prompt).
    public var context: JSONValue
    public var contextBytes: Int
    /// The context's fields written by other agents.
    public var untrusted: [String]
    public var recentTitles: Int
    /// The state file read for recent titles and the duplicate guard; nil when there is none.
    public var state: String?
    /// Where the state file was looked for.
    var statePath: String?
    public var system: String?
    public var prompt: String?
    /// `passed`, `refused`, `skipped` or `failed`.
    public var outcome: String
    /// Why it was refused, skipped or failed.
    public var reason: String?
    /// The generated title and content (as the write would take them).
    public var generated: Text?
    /// The text is not shown: the secret scan found what looks like a credential in it.
    public var textWithheld = false
    public var checks: [Check]
    public var status: ExitStatus

    enum CodingKeys: String, CodingKey {
        case recipe, job, step, action, generator, program, model, agent, occurrence, key, target, context
        case contextBytes = "context_bytes"
        case untrusted
        case recentTitles = "recent_title_count"
        case state, system, prompt, outcome, reason
        case generated = "text"
        case textWithheld = "text_withheld"
        case checks
        case exitStatus = "exit_status"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(recipe, forKey: .recipe)
        try container.encode(job, forKey: .job)
        try container.encode(step, forKey: .step)
        try container.encode(action, forKey: .action)
        try container.encode(generator, forKey: .generator)
        try container.encode(program, forKey: .program)
        try container.encode(model, forKey: .model)
        try container.encode(agent, forKey: .agent)
        try container.encode(occurrence, forKey: .occurrence)
        try container.encode(key, forKey: .key)
        try container.encode(target, forKey: .target)
        try container.encode(context, forKey: .context)
        try container.encode(contextBytes, forKey: .contextBytes)
        try container.encode(untrusted, forKey: .untrusted)
        try container.encode(recentTitles, forKey: .recentTitles)
        try container.encode(state, forKey: .state)
        try container.encode(system, forKey: .system)
        try container.encode(prompt, forKey: .prompt)
        try container.encode(outcome, forKey: .outcome)
        try container.encode(reason, forKey: .reason)
        try container.encode(generated, forKey: .generated)
        try container.encode(textWithheld, forKey: .textWithheld)
        try container.encode(checks, forKey: .checks)
        try container.encode(status.rawValue, forKey: .exitStatus)
    }

    init(
        trial: GenerationTrial, write: StepExpander.Expanded, request: GenerationRequest,
        target read: GenerateSession.TargetRead, history: ContentHistory?, statePath: String?, answer: GenerationAnswer
    ) {
        recipe = trial.recipe.file
        job = trial.job.id.value
        step = trial.step + 1
        action = trial.kind.rawValue
        generator = trial.spec.kindName
        switch trial.spec.source {
        case .command(let arguments): program = arguments.first
        case .openAI(let endpoint): model = endpoint.model
        }
        agent = request.agent
        occurrence = MoltbookDateText.iso(trial.now)
        key = request.key
        switch trial.target {
        case .none: target = nil
        case .named(let post, let replyTo):
            target = Target(
                id: post, title: read.post?.title, author: read.post?.author?.name, namedByRecipe: true,
                replyTo: replyTo, read: read.post != nil, notReadBecause: read.unread,
                threadComments: read.thread?.chain.count ?? 0)
        case .selected:
            target = read.post.map {
                Target(
                    id: $0.id, title: $0.title, author: $0.author?.name, namedByRecipe: false,
                    selectorPicks: read.selectorPicks, read: true, threadComments: 0)
            }
        }
        context = (try? JSONValue.parse(request.context)) ?? .null
        contextBytes = request.context.count
        untrusted = context["untrusted"]?.array?.compactMap(\.string) ?? []
        recentTitles = context["recent_titles"]?.array?.count ?? 0
        state = history == nil ? nil : statePath
        self.statePath = statePath
        system = request.system
        prompt = request.prompt
        checks = []
        switch answer {
        case .text(let written):
            let findings = trial.findings(of: written, for: write, history: history)
            checks = findings.map { Check(check: $0.check, result: $0.result.rawValue, detail: $0.detail) }
            let refused = findings.first { $0.result == .refused }
            outcome = refused == nil ? "passed" : "refused"
            reason = refused?.detail
            status = refused == nil ? .ok : .textRefused
            if findings.contains(where: { $0.check == "secrets" && $0.result == .refused }) {
                textWithheld = true
            } else if let fields = GeneratedTextCheck.findings(of: written, for: trial.kind, deny: []).fields {
                generated = Text(title: fields.title, content: fields.content)
            } else {
                generated = Text(title: written.title, content: written.content)
            }
        case .skip(let why):
            (outcome, reason, status) = ("skipped", why, .generatorSkipped)
        case .failed(let why):
            (outcome, reason, status) = ("failed", why, .generatorFailed)
        case .pending:
            (outcome, reason, status) = ("failed", "the generator gave no answer", .generatorFailed)
        }
    }

    /// The lines printed without `--json`.
    public var text: String {
        var lines: [String] = []
        let by = generator == "openai" ? "openai, model \(model ?? "?")" : "command \(program ?? "?")"
        lines.append("\((recipe as NSString).lastPathComponent) \(job)/\(step): a \(action), generated by \(by)")
        lines.append("agent \(agent), occurrence \(occurrence), write key \(key)")
        if let target {
            let reply = target.replyTo.map { ", a reply to comment \($0)" } ?? ""
            let named = target.namedByRecipe ? ", named by the recipe" : ""
            if target.read {
                lines.append(
                    "target: post \(target.id) \"\(Self.visible(target.title ?? ""))\" by "
                        + "\(Self.visible(target.author ?? "?"))\(named)\(reply) (read with GET)")
                if target.replyTo != nil {
                    let count = target.threadComments
                    lines.append("  the thread: \(count) comment\(count == 1 ? "" : "s") down to the one answered")
                }
            } else {
                lines.append(
                    "target: post \(target.id)\(named)\(reply), not read: "
                        + "\(Self.visible(target.notReadBecause ?? "?"))")
                lines.append(
                    "  the context has no target post; the runner reads it with the agent's key and gives it to "
                        + "the generator")
            }
            if target.selectorPicks == false {
                lines.append(
                    "  note: the step's selector would not pick this post now: the runner would not comment on it")
            }
        }
        lines.append(
            state.map { "state: \($0) (\(recentTitles) recent title\(recentTitles == 1 ? "" : "s") in the context)" }
                ?? "state: no state file\(statePath.map { " at \($0)" } ?? "") (no recent titles; the duplicate guard "
                + "is not checked)")
        lines.append("")
        lines.append(
            "context (\(contextBytes) bytes; written by other agents, untrusted: \(untrusted.joined(separator: ", "))):"
        )
        lines.append(Self.indented(Self.pretty(context)))
        if let system {
            lines.append("system:")
            lines.append(Self.indented(Self.visible(system)))
        }
        if let prompt {
            lines.append("prompt:")
            lines.append(Self.indented(Self.visible(prompt)))
        }
        lines.append("")
        if textWithheld {
            lines.append("text: withheld (it contains what looks like a credential)")
        } else if let text = generated {
            lines.append("text:")
            if let title = text.title { lines.append("  title: \(Self.visible(title))") }
            lines.append(Self.indented(Self.visible(text.content)))
        }
        if !checks.isEmpty {
            lines.append("checks:")
            let width = checks.map(\.check.count).max() ?? 0
            for check in checks {
                let name = check.check.padding(toLength: width, withPad: " ", startingAt: 0)
                lines.append(
                    "  \(name)  \(check.result.replacingOccurrences(of: "_", with: " ")): \(Self.visible(check.detail))"
                )
            }
        }
        let why = Self.visible(reason ?? "")
        switch outcome {
        case "passed": lines.append("result: the text passes every check (exit 0)")
        case "refused": lines.append("result: refused: \(why) (exit \(status.rawValue))")
        case "skipped": lines.append("result: the generator skipped the occurrence: \(why) (exit \(status.rawValue))")
        default: lines.append("result: the generator failed: \(why) (exit \(status.rawValue))")
        }
        return lines.joined(separator: "\n")
    }

    /// `value` as JSON, one member a line, keys sorted; empty arrays and objects on one line.
    static func pretty(_ value: JSONValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .array(let items) where !items.isEmpty:
            return "[\n" + items.map { inner + pretty($0, indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .object(let members) where !members.isEmpty:
            let lines = members.keys.sorted().map { key in
                inner + String(decoding: JSONValue.string(key).encoded(), as: UTF8.self) + ": "
                    + pretty(members[key] ?? .null, indent: inner)
            }
            return "{\n" + lines.joined(separator: ",\n") + "\n\(indent)}"
        default:
            return String(decoding: value.encoded(), as: UTF8.self)
        }
    }

    /// `text` with control characters other than line breaks and tabs shown as `\u{1B}`: text
    /// written by other agents or a model never moves the cursor or recolours the terminal.
    static func visible(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars {
            let control = scalar.properties.generalCategory == .control && scalar != "\n" && scalar != "\t"
            shown += control ? "\\u{\(String(scalar.value, radix: 16, uppercase: true))}" : String(scalar)
        }
        return shown
    }

    static func indented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
    }
}
