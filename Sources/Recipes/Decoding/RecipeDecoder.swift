import Foundation

/// Turns a composed YAML tree into a `Recipe`, collecting every problem it finds rather than stopping at the first.
final class RecipeDecoder {
    let file: String
    let sourceLines: [Substring]
    /// Reads a file named relative to the recipe (queues, content files); nil if it cannot be read.
    let readFile: (String) -> [UInt8]?
    let directory: String
    var diagnostics: [Diagnostic] = []
    /// Recipe-level settings later parts depend on.
    var environment: [String] = []
    var timeZone = TimeZone(identifier: "UTC") ?? TimeZone.current
    /// The recipe's agent, the phase of its `heartbeat:` schedules ("" until decoded).
    var agentName = ""

    init(file: String, source: [UInt8], directory: String, readFile: @escaping (String) -> [UInt8]?) {
        self.file = file
        self.sourceLines = String(decoding: source, as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false)
        self.directory = directory
        self.readFile = readFile
    }

    static let topKeys = [
        "version", "name", "agent", "base_url", "time_zone", "seed", "env", "limits", "challenge", "duplicates",
        "jobs",
    ]

    func decode(_ root: YAMLNode?) -> Recipe? {
        guard let root else {
            error(
                .start, code: "empty", "the recipe is empty", expected: "a mapping with at least `agent:` and `jobs:`")
            return nil
        }
        guard let fields = mapping(root, allowed: Self.topKeys, required: ["agent", "jobs"], what: "the recipe") else {
            return nil
        }
        if let node = fields["version"], let version = integer(node, in: 1...1, what: "version") {
            _ = version
        }
        let agent = fields["agent"].flatMap { name($0, what: "agent") }
        agentName = agent?.value ?? ""
        var baseURL: Located<String>?
        if let node = fields["base_url"], let text = string(node, what: "base_url") {
            if let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil {
                baseURL = Located(text, at: node.mark)
            } else {
                error(
                    node.mark, code: "value", "`\(text)` is not an http(s) URL",
                    expected: "a URL like http://127.0.0.1:8787/api/v1")
            }
        }
        if let node = fields["time_zone"], let zone = zone(node) { timeZone = zone }
        if let node = fields["env"] {
            environment = stringList(node, what: "env").map(\.value)
            for name in environment where !Self.isEnvironmentName(name) {
                error(
                    node.mark, code: "value", "`\(name)` is not an environment variable name",
                    expected: "upper-case letters, digits and underscores")
            }
        }
        let recipeName: String
        var nameIsExplicit = false
        if let node = fields["name"], let text = name(node, what: "name") {
            recipeName = text.value
            nameIsExplicit = true
        } else {
            recipeName = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        }
        // The default seed is the recipe's identity (its `name:`, else its agent), not the file's
        // name: a renamed file keeps its jitter and `{{ random }}` picks.
        let seed =
            fields["seed"].flatMap { string($0, what: "seed") } ?? (nameIsExplicit ? recipeName : agent?.value ?? "")
        let limits = fields["limits"].map(decodeLimits) ?? LimitOverrides()
        let challenge = fields["challenge"].flatMap(decodeChallenge)
        let duplicates = fields["duplicates"].flatMap(decodeDuplicates)
        var jobs: [Job] = []
        if let node = fields["jobs"] {
            if let items = list(node, what: "jobs", nonEmpty: true) {
                var seen: [String: Mark] = [:]
                for item in items {
                    guard let job = decodeJob(item) else { continue }
                    if let first = seen[job.id.value] {
                        error(
                            job.id.mark, code: "duplicate", "job id `\(job.id.value)` is used twice; first at \(first)",
                            expected: "a unique id per job")
                    } else {
                        seen[job.id.value] = job.id.mark
                    }
                    jobs.append(job)
                }
            }
        }
        guard let agent, !diagnostics.contains(where: { $0.severity == .error }) else { return nil }
        var recipe = Recipe(
            file: file, name: recipeName, agent: agent, baseURL: baseURL, timeZone: timeZone, seed: seed,
            environment: environment, limits: limits, challenge: challenge, duplicates: duplicates,
            jobs: jobs)
        recipe.nameIsExplicit = nameIsExplicit
        return recipe
    }

    static let jobKeys = ["id", "schedule", "steps", "expire_after"]

    func decodeJob(_ node: YAMLNode) -> Job? {
        guard let fields = mapping(node, allowed: Self.jobKeys, required: ["id", "schedule", "steps"], what: "a job")
        else { return nil }
        let id = fields["id"].flatMap { name($0, what: "job id") }
        let trigger = fields["schedule"].flatMap(decodeSchedule)
        var steps: [Step] = []
        if let stepsNode = fields["steps"], let items = list(stepsNode, what: "steps", nonEmpty: true) {
            steps = items.compactMap(decodeStep)
        }
        let expireAfter = fields["expire_after"].flatMap {
            duration($0, what: "expire_after", in: 60...(30 * 86_400), expected: "from 1m to 30d")
        }
        guard let id, let trigger, let scheduleNode = fields["schedule"] else { return nil }
        var job = Job(id: id, trigger: trigger, scheduleMark: scheduleNode.mark, steps: steps, mark: node.mark)
        job.expireAfter = expireAfter
        return job
    }

    func error(_ mark: Mark, code: String, _ message: String, expected: String? = nil, suggestion: String? = nil) {
        diagnostics.append(
            Diagnostic(
                file: file, mark: mark, code: code, message: message, expected: expected,
                suggestion: suggestion))
    }

    /// The position of character `offset` of a scalar's value in the source.
    func mark(ofOffset offset: Int, in node: YAMLNode) -> Mark {
        guard let value = node.scalar else { return node.mark }
        let prefix = value.prefix(offset)
        let newlines = prefix.filter { $0 == "\n" }.count
        switch node.scalarStyle ?? .plain {
        case .literal, .folded:
            let line = node.mark.line + 1 + newlines
            let lineText = line - 1 < sourceLines.count ? sourceLines[line - 1] : ""
            let indent = lineText.prefix { $0 == " " }.count
            let column = prefix.split(separator: "\n", omittingEmptySubsequences: false).last?.count ?? 0
            return Mark(line: line, column: indent + column + 1)
        case .plain:
            return newlines == 0 ? Mark(line: node.mark.line, column: node.mark.column + offset) : node.mark
        case .singleQuoted, .doubleQuoted:
            return newlines == 0 ? Mark(line: node.mark.line, column: node.mark.column + 1 + offset) : node.mark
        }
    }
}
