import FileSafety
import Foundation
import Generation
import Keychain
import MoltbookAPI
import Recipes

#if canImport(Glibc)
    import Glibc
#endif

/// What a recipe's generators (`generate:`, issue 21) need on this machine, for `moltipass
/// check`: nothing is run, no model server is asked. A command's program exists and is
/// executable (found as the generator finds it: a path as is, a bare name on the generators'
/// `PATH`); its `env:` variables are set (a warning: the program may do without); an `openai:`
/// server's `base_url` is https or plain http to loopback; its `key_file:` is private and holds
/// one key (never shown); its `key:` names a model key of the keychain (`modelKeyProblems`,
/// once the keychain is open).
public enum GeneratorChecks {
    /// Problems (`generator`: the recipe cannot run here) and warnings of `recipe`'s generators.
    public static func check(_ recipe: Recipe, environment: [String: String]) -> (
        problems: [HealthProblem], warnings: [HealthProblem]
    ) {
        var problems: [HealthProblem] = []
        var warnings: [HealthProblem] = []
        for generated in recipe.generatedSteps {
            let place = Self.place(recipe, generated)
            func problem(_ text: String) {
                problems.append(HealthProblem(kind: "generator", agent: recipe.agent.value, message: place + text))
            }
            switch generated.spec.source {
            case .command(let arguments):
                if let text = programProblem(arguments.first ?? "") { problem(text) }
                for name in generated.spec.environment where (environment[name] ?? "").isEmpty {
                    warnings.append(
                        HealthProblem(
                            kind: "generator_environment", agent: recipe.agent.value,
                            message: place + "passes environment variable \(name), which is "
                                + (environment[name] == nil ? "not set" : "empty")
                                + " here: the program gets "
                                + (environment[name] == nil ? "no \(name)" : "it empty")))
                }
            case .openAI(let endpoint):
                if let text = baseURLProblem(endpoint.baseURL.value) { problem(text) }
                if case .file(let path)? = endpoint.key, let text = keyFileProblem(path) { problem(text) }
            }
        }
        return (problems, warnings)
    }

    /// `keychain` problems: the model keys `recipe`'s generators name (`key:`) that `contents`
    /// lacks, with the closest name it has.
    public static func modelKeyProblems(_ recipe: Recipe, contents: KeychainContents, keychain: String)
        -> [HealthProblem]
    {
        let stored = contents.modelEntries.map(\.name)
        return recipe.generatedSteps.compactMap { generated in
            guard case .openAI(let endpoint) = generated.spec.source, case .keychain(let located)? = endpoint.key,
                contents.modelEntry(named: located.value) == nil
            else { return nil }
            let name = located.value
            return HealthProblem(
                kind: "keychain", agent: recipe.agent.value,
                message: place(recipe, generated) + "no model key `\(name)` in \(keychain)"
                    + (Suggest.closest(to: name, among: stored).map { " (did you mean `\($0)`?)" } ?? "")
                    + "; store it with `moltipass keys add --model \(name)` or fix the recipe's `key:`")
        }
    }

    /// `recipe.yaml: generator of `notes/1`: `, the step as `moltipass generate --step` takes it.
    static func place(_ recipe: Recipe, _ generated: Recipe.GeneratedStep) -> String {
        "\(recipe.file): generator of `\(generated.job)/\(generated.step + 1)`: "
    }

    /// Why the program of a command generator cannot run, or nil when it can.
    static func programProblem(_ program: String) -> String? {
        guard CommandGenerator.resolve(program) == nil else { return nil }
        guard program.contains("/") else {
            let found = CommandGenerator.safePath.split(separator: ":").map { "\($0)/\(program)" }
                .first { FileManager.default.fileExists(atPath: $0) }
            if let found { return "the program \(found) is not an executable file" }
            return "the program `\(program)` is not on the generators' PATH (\(CommandGenerator.safePath)); "
                + "give its full path"
        }
        var info = stat()
        guard stat(program, &info) == 0 else { return "the program \(program) does not exist" }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return "the program \(program) is not a regular file" }
        return "the program \(program) is not executable (chmod +x \(program))"
    }

    /// Why the model server at `baseURL` would be refused, or nil: https, or http to loopback.
    static func baseURLProblem(_ baseURL: String) -> String? {
        guard let url = URL(string: baseURL) else { return "base_url \(baseURL) is not a URL" }
        do {
            try ChatCompletionsClient.policy.check(url)
            return nil
        } catch {
            if url.scheme?.lowercased() == "http", let host = url.host {
                return "base_url \(baseURL) is plain http to \(host), which is not this machine: the prompts "
                    + "and the key would cross the network unencrypted; use https (plain http is for 127.0.0.1, "
                    + "::1 and localhost)"
            }
            return "base_url \(baseURL) is refused: \(error)"
        }
    }

    /// Why the key file at `path` cannot give a key, or nil: it must be a private regular file
    /// (mode 0600 or 0400) holding one key. Its content is never part of the answer.
    static func keyFileProblem(_ path: String) -> String? {
        let data: Data
        do {
            data = try PrivateFile.read(path, limit: ModelKey.maximumLength + 2)
        } catch let error as FileSafetyError {
            switch error {
            case .notFound: return "the key file \(path) does not exist"
            case .notARegularFile: return "the key file \(path) is not a regular file"
            case .insecurePermissions(_, let mode):
                return "the key file \(path) is accessible by group or others (mode \(FileSafetyError.octal(mode))); "
                    + "make it private: \(FileSafetyError.chmodHint(for: path))"
            case .tooLarge(_, let size, _):
                return "the key file \(path) is \(size) bytes, more than one key (at most \(ModelKey.maximumLength))"
            default: return "the key file: \(error)"
            }
        } catch {
            return "the key file \(path) cannot be read"
        }
        if data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) { return "the key file \(path) is empty" }
        guard ModelKey(String(decoding: data, as: UTF8.self)).isUsable else {
            return ModelKeyFileError.unusable(path: path).description
        }
        return nil
    }
}
