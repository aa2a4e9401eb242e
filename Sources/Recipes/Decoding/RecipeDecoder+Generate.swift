import Foundation

extension RecipeDecoder {
    static let generateKeys = ["command", "openai", "timeout", "max_output", "attempts", "deny", "env"]
    static let openAIKeys = ["base_url", "model", "system", "prompt", "temperature", "max_tokens", "key", "key_file"]

    /// `generate:` of a post (`hasTarget` false) or a comment (true); `hasTrigger`: of a reply or
    /// dm step, whose prompts may read `{{ trigger.* }}`.
    func decodeGenerator(_ node: YAMLNode, hasTarget: Bool, hasTrigger: Bool = false) -> GeneratorSpec? {
        guard let fields = mapping(node, allowed: Self.generateKeys, what: "generate") else { return nil }
        let kinds = ["command", "openai"].filter { fields[$0] != nil }
        guard kinds.count == 1 else {
            error(
                node.mark, code: kinds.isEmpty ? "missing-key" : "conflict",
                kinds.isEmpty ? "generate has no generator" : "generate has both `command` and `openai`",
                expected: "exactly one of `command: [PROGRAM, ARGS…]` or `openai: {base_url, model, prompt}`")
            return nil
        }
        let source: GeneratorSpec.Source?
        if let command = fields["command"] {
            source = decodeCommand(command).map { .command(arguments: $0) }
        } else {
            source = fields["openai"].flatMap {
                decodeChatEndpoint($0, hasTarget: hasTarget, hasTrigger: hasTrigger)
            }.map { .openAI($0) }
        }
        var spec = GeneratorSpec(source: .command(arguments: []), mark: node.mark)
        if let timeout = fields["timeout"] {
            spec.timeoutSeconds =
                duration(timeout, what: "generate timeout", name: "timeout", in: 1...600, expected: "from 1s to 10m")
                ?? spec.timeoutSeconds
        }
        if let maxOutput = fields["max_output"] { spec.maxOutput = byteCount(maxOutput) ?? spec.maxOutput }
        if let attempts = fields["attempts"] {
            spec.attempts = integer(attempts, in: 1...10, what: "attempts") ?? spec.attempts
        }
        if let deny = fields["deny"] {
            let items =
                deny.sequence == nil && deny.scalar != nil ? [deny] : (list(deny, what: "deny", nonEmpty: true) ?? [])
            spec.deny = items.compactMap { pattern($0, what: "deny pattern") }
        }
        if let env = fields["env"] {
            if fields["openai"] != nil {
                error(
                    env.mark, code: "conflict", "`env` applies to a command generator only",
                    expected: "`env:` next to `command:`, or no `env:`")
            }
            spec.environment = generatorEnvironment(env)
        }
        guard let source else { return nil }
        spec.source = source
        return spec
    }

    /// `[PROGRAM, ARGS…]` or a bare `PROGRAM`; a program path with a `/` is resolved against the
    /// recipe's directory, a bare name is looked up on the generator's fixed `PATH` when it runs.
    func decodeCommand(_ node: YAMLNode) -> [String]? {
        let items = node.scalar != nil && !node.isNull ? [node] : (list(node, what: "command", nonEmpty: true) ?? [])
        guard !items.isEmpty else { return nil }
        var arguments: [String] = []
        for (index, item) in items.enumerated() {
            guard
                let text = string(
                    item, what: index == 0 ? "command program" : "command argument", allowEmpty: index > 0)
            else { return nil }
            if text.contains("\0") {
                error(item.mark, code: "value", "a command argument holds a NUL byte", expected: "plain text")
                return nil
            }
            arguments.append(index == 0 && text.contains("/") ? resolve(text) : text)
        }
        return arguments
    }

    func decodeChatEndpoint(_ node: YAMLNode, hasTarget: Bool, hasTrigger: Bool = false) -> GeneratorSpec.ChatEndpoint?
    {
        guard
            let fields = mapping(
                node, allowed: Self.openAIKeys, required: ["base_url", "model", "prompt"], what: "openai")
        else { return nil }
        let baseURL = fields["base_url"].flatMap(baseURL)
        let model = fields["model"].flatMap { string($0, what: "model") }
        let prompt = fields["prompt"].flatMap {
            promptTemplate($0, what: "prompt", hasTarget: hasTarget, hasTrigger: hasTrigger)
        }
        let system = fields["system"].flatMap {
            promptTemplate($0, what: "system", hasTarget: hasTarget, hasTrigger: hasTrigger)
        }
        var temperature: Double?
        if let node = fields["temperature"] {
            if let value = node.scalar.flatMap(Double.init), node.scalarStyle == .plain, (0...2).contains(value) {
                temperature = value
            } else {
                error(
                    node.mark, code: "value",
                    "temperature is \(node.scalar.map { "`\($0)`" } ?? node.kindDescription)",
                    expected: "a number from 0 to 2, like 0.7")
            }
        }
        let maxTokens = fields["max_tokens"].flatMap { integer($0, in: 1...32_768, what: "max_tokens") }
        var key: GeneratorSpec.KeySource?
        switch (fields["key"], fields["key_file"]) {
        case (let name?, let file?):
            error(
                file.mark, code: "conflict", "openai has both `key` and `key_file`",
                expected: "one of them (`key:` names a keychain model key)")
            _ = name
        case (let name?, nil):
            key = self.name(name, what: "key").map { .keychain(name: $0) }
        case (nil, let file?):
            key = string(file, what: "key_file").map { .file(path: resolve($0)) }
        case (nil, nil):
            key = nil
        }
        guard let baseURL, let model, let prompt else { return nil }
        return GeneratorSpec.ChatEndpoint(
            baseURL: baseURL, model: model, system: system, prompt: prompt, temperature: temperature,
            maxTokens: maxTokens, key: key)
    }

    /// An http(s) URL; the client decides at run time whether plain http is allowed (loopback only).
    func baseURL(_ node: YAMLNode) -> Located<String>? {
        guard let text = string(node, what: "base_url") else { return nil }
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = url.host, !host.isEmpty
        else {
            error(
                node.mark, code: "value", "base_url `\(text)` is not an http(s) URL",
                expected: "a URL like https://api.example.com/v1 or http://127.0.0.1:11434/v1")
            return nil
        }
        if url.user != nil || url.password != nil || url.query != nil {
            error(
                node.mark, code: "value", "base_url carries a user, password or query",
                expected: "the server's URL alone; the key goes in `key:` or `key_file:`")
            return nil
        }
        return Located(text, at: node.mark)
    }

    func promptTemplate(_ node: YAMLNode, what: String, hasTarget: Bool, hasTrigger: Bool = false) -> Template? {
        guard let text = string(node, what: what) else { return nil }
        do {
            return try Template.parse(
                text, at: node.mark,
                scope: Template.Scope(
                    environment: environment, hasTarget: hasTarget, generation: true, hasTrigger: hasTrigger))
        } catch {
            self.error(
                mark(ofOffset: error.offset, in: node), code: "template", "in \(what): \(error.message)",
                expected: error.expected, suggestion: error.suggestion)
            return nil
        }
    }

    /// `65536`, `64k`, `1m`: 1 KiB to 1 MiB.
    func byteCount(_ node: YAMLNode) -> Int? {
        let text = (node.scalar ?? "").lowercased()
        let units: [(String, Int)] = [("k", 1024), ("m", 1024 * 1024), ("", 1)]
        let range = 1024...(1024 * 1024)
        for (suffix, unit) in units where text.hasSuffix(suffix) {
            if let number = Int(text.dropLast(suffix.count)), node.scalarStyle == .plain || !suffix.isEmpty {
                let (bytes, overflow) = number.multipliedReportingOverflow(by: unit)
                if !overflow, range.contains(bytes) { return bytes }
                break
            }
        }
        error(
            node.mark, code: "value", "max_output is \(node.scalar.map { "`\($0)`" } ?? node.kindDescription)",
            expected: "a size from 1k to 1m (bytes, or with k or m)")
        return nil
    }

    /// Names passed to a command generator. Moltipass's own variables (keys, passphrases) never are.
    func generatorEnvironment(_ node: YAMLNode) -> [String] {
        let items =
            node.sequence == nil && node.scalar != nil ? [node] : (list(node, what: "env", nonEmpty: true) ?? [])
        var names: [String] = []
        for item in items {
            guard let name = string(item, what: "env") else { continue }
            if !Self.isEnvironmentName(name) {
                error(
                    item.mark, code: "value", "`\(name)` is not an environment variable name",
                    expected: "a name like MODEL_NAME (A–Z, 0–9, _)")
            } else if ["PATH", "LANG", "HOME"].contains(name) {
                error(
                    item.mark, code: "value", "`\(name)` is set by Moltipass for every generator",
                    expected: "another name (a generator's PATH is /usr/local/bin:/usr/bin:/bin; use a full path)")
            } else if name.hasPrefix("MOLTIPASS_") || name.hasPrefix("MOLTBOOK_") {
                error(
                    item.mark, code: "value", "`\(name)` is Moltipass's own and is never passed to a generator",
                    expected: "another name; keys stay with Moltipass")
            } else {
                names.append(name)
            }
        }
        return names
    }
}
