import Foundation

extension Template {
    /// What a template may refer to where it is used.
    public struct Scope: Sendable {
        /// Whitelisted environment variable names.
        public var environment: [String]
        /// Whether `post.*` fields exist (the step acts on a post).
        public var hasTarget: Bool
        /// A generator's prompt (issue 21): the generation context's placeholders exist too
        /// (`Template.contextFields`), and every `post.*` field, `post.content` included, is read
        /// from that context, where text written by other agents is fenced as untrusted.
        public var generation: Bool
        /// Whether `trigger.*` fields exist: the step answers an inbound item (a `reply:` or
        /// `dm:` step, or a comment with `reply_to: trigger`). With `hasTarget` false as well it
        /// is a dm step, which has no post.
        public var hasTrigger: Bool

        public init(environment: [String], hasTarget: Bool, generation: Bool = false, hasTrigger: Bool = false) {
            self.environment = environment
            self.hasTarget = hasTarget
            self.generation = generation
            self.hasTrigger = hasTrigger
        }
    }

    /// Parses `text`, checking every placeholder against `scope`.
    public static func parse(_ text: String, at mark: Mark, scope: Scope) throws(TemplateError) -> Template {
        let characters = Array(text)
        var segments: [Segment] = []
        var literal = ""
        var index = 0
        while index < characters.count {
            if characters[index] == "{", index + 1 < characters.count, characters[index + 1] == "{" {
                guard let close = find("}}", in: characters, from: index + 2) else {
                    throw TemplateError(
                        offset: index, message: "unclosed `{{`", expected: "`}}` to close the placeholder",
                        suggestion: nil)
                }
                if !literal.isEmpty { segments.append(.literal(literal)) }
                literal = ""
                let inner = String(characters[(index + 2)..<close])
                let leading = inner.prefix { $0 == " " }.count
                segments.append(
                    try expression(
                        inner.trimmingCharacters(in: .whitespaces), offset: index + 2 + leading,
                        scope: scope))
                index = close + 2
            } else {
                literal.append(characters[index])
                index += 1
            }
        }
        if !literal.isEmpty { segments.append(.literal(literal)) }
        return Template(source: text, segments: segments, mark: mark)
    }

    static func find(_ needle: String, in characters: [Character], from start: Int) -> Int? {
        let pattern = Array(needle)
        var index = start
        while index + pattern.count <= characters.count {
            if Array(characters[index..<(index + pattern.count)]) == pattern { return index }
            index += 1
        }
        return nil
    }

    static let expressionNames = ["date", "agent", "post.", "env.", "random"]

    static func expression(_ text: String, offset: Int, scope: Scope) throws(TemplateError) -> Segment {
        let expectedKinds =
            "date, date: FORMAT, agent, post.FIELD, " + (scope.hasTrigger ? "trigger.FIELD, " : "")
            + "env.NAME or random: [a, b]"
        if text == "date" { return .date(format: "yyyy-MM-dd") }
        if text == "agent" { return .agent }
        if scope.generation, contextFields.contains(text) { return .context(field: text) }
        if scope.generation, text.hasPrefix("topic.") {
            let field = String(text.dropFirst(6))
            guard topicFields.contains(field) else {
                throw TemplateError(
                    offset: offset + 6, message: "unknown topic field `\(field)`",
                    expected: "one of " + topicFields.joined(separator: ", "),
                    suggestion: Suggest.closest(to: field, among: topicFields).map { "topic." + $0 })
            }
            return .context(field: text)
        }
        if text.hasPrefix("date:") {
            let afterColon = text.dropFirst(5)
            let format = afterColon.trimmingCharacters(in: .whitespaces)
            try checkDateFormat(format, offset: offset + 5 + afterColon.prefix { $0 == " " }.count)
            return .date(format: format)
        }
        if text.hasPrefix("trigger.") {
            return try triggerField(text, offset: offset, scope: scope)
        }
        if text.hasPrefix("post.") {
            let field = String(text.dropFirst(5))
            if !scope.hasTarget, scope.hasTrigger {
                throw TemplateError(
                    offset: offset, message: "`{{ \(text) }}` has no post in a dm step",
                    expected: "the message answered, as `trigger.FIELD`: "
                        + triggerFields.joined(separator: ", "),
                    suggestion: triggerFields.contains(field) ? "trigger." + field : nil)
            }
            guard scope.hasTarget else {
                throw TemplateError(
                    offset: offset, message: "`{{ \(text) }}` has no post to read here",
                    expected: "post fields only in a comment or reply step, which acts on a post", suggestion: nil)
            }
            let fields = scope.generation ? targetFields + ["content"] : targetFields
            guard fields.contains(field) else {
                throw TemplateError(
                    offset: offset + 5, message: "unknown post field `\(field)`",
                    expected: "one of " + fields.joined(separator: ", "),
                    suggestion: Suggest.closest(to: field, among: fields).map { "post." + $0 })
            }
            return scope.generation ? .context(field: text) : .target(field: field)
        }
        if text.hasPrefix("env.") {
            let name = String(text.dropFirst(4))
            guard scope.environment.contains(name) else {
                throw TemplateError(
                    offset: offset + 4, message: "environment variable `\(name)` is not whitelisted",
                    expected: "`\(name)` listed under `env:` at the top of the recipe",
                    suggestion: Suggest.closest(to: name, among: scope.environment).map { "env." + $0 })
            }
            return .environment(name: name)
        }
        if text.hasPrefix("random:") {
            let body = text.dropFirst(7).trimmingCharacters(in: .whitespaces)
            guard body.hasPrefix("["), body.hasSuffix("]"), body.count >= 2 else {
                throw TemplateError(
                    offset: offset, message: "`random:` needs a list", expected: "random: [a, b, c]",
                    suggestion: nil)
            }
            let choices = body.dropFirst().dropLast().split(separator: ",", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard choices.count >= 2, !choices.contains(where: \.isEmpty) else {
                throw TemplateError(
                    offset: offset, message: "`random:` needs at least two non-empty choices",
                    expected: "random: [a, b, c]", suggestion: nil)
            }
            return .random(choices: choices)
        }
        let head = String(text.prefix { $0.isLetter || $0 == "_" })
        let names =
            ["date", "agent", "post", "env", "random"] + (scope.hasTrigger ? ["trigger"] : [])
            + (scope.generation ? contextFields : [])
        let suggestion = Suggest.closest(to: head, among: names)
        throw TemplateError(
            offset: offset, message: text.isEmpty ? "empty placeholder" : "unknown placeholder `\(text)`",
            expected: scope.generation ? expectedKinds + ", " + contextFields.joined(separator: ", ") : expectedKinds,
            suggestion: suggestion)
    }

    /// `trigger.FIELD`: only where the step answers an inbound item; a plain template reads it
    /// from the target fields under its full name, a prompt from the generation context.
    static func triggerField(_ text: String, offset: Int, scope: Scope) throws(TemplateError) -> Segment {
        let field = String(text.dropFirst(8))
        guard scope.hasTrigger else {
            throw TemplateError(
                offset: offset, message: "`{{ \(text) }}` has no trigger to read here",
                expected: "trigger fields only in a reply or dm step (or a comment with `reply_to: trigger`), "
                    + "which answers another agent",
                suggestion: nil)
        }
        guard triggerFields.contains(field) else {
            throw TemplateError(
                offset: offset + 8, message: "unknown trigger field `\(field)`",
                expected: "one of " + triggerFields.joined(separator: ", "),
                suggestion: Suggest.closest(to: field, among: triggerFields).map { "trigger." + $0 })
        }
        return scope.generation ? .context(field: text) : .target(field: text)
    }

    static func checkDateFormat(_ format: String, offset: Int) throws(TemplateError) {
        guard !format.isEmpty else {
            throw TemplateError(
                offset: offset, message: "empty date format", expected: "a format such as yyyy-MM-dd",
                suggestion: nil)
        }
        var quoted = false
        for (index, character) in format.enumerated() {
            if character == "'" {
                quoted.toggle()
                continue
            }
            if !quoted, character.isASCII, character.isLetter, !dateLetters.contains(character) {
                throw TemplateError(
                    offset: offset + index, message: "`\(character)` is not a date field letter",
                    expected: "ICU pattern letters (y M d E H h m s a z …); quote literal text as 'text'",
                    suggestion: nil)
            }
        }
        if quoted {
            throw TemplateError(
                offset: offset, message: "unclosed quote in date format", expected: "'text' quoted in pairs",
                suggestion: nil)
        }
    }
}
