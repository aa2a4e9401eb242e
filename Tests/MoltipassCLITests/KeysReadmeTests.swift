import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// The shell examples of README.md's "Keychain" section, run line by line through the real
/// binary against a sandbox (so the documented command lines cannot drift from the CLI).
@Suite("README Keychain examples")
struct KeysReadmeTests {
    static let key = "moltbook_sk_README0example0key0not0real000000"
    static let modelKey = "sk-README0model0key0not0real"

    /// Every line of every `sh` block is an `export` or a `moltipass` command; each runs with
    /// the documented arguments (plus the sandbox URL and a tiny scrypt cost), in order, and
    /// exits as expected; the key appears only in the file `keys export --reveal` wrote.
    @Test func shellExamplesRun() async throws {
        let lines = try Self.shellLines()
        #expect(lines.count >= 12)
        let home = try KeysHome()
        defer { home.remove() }
        let sandbox = try await SandboxProcess.start()
        defer { Task { await sandbox.stop() } }
        let secrets = home.path + "/secrets"
        try FileManager.default.createDirectory(atPath: secrets, withIntermediateDirectories: true)
        try KeysHome.writeSecret("first passphrase\n", to: secrets + "/moltipass")
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: secrets + "/moltipass")
        try KeysHome.writeSecret("second passphrase\n", to: secrets + "/moltipass-new")
        try KeysHome.writeSecret(Self.key + "\n", to: home.path + "/reef_scout.key")
        try KeysHome.writeSecret(Self.modelKey + "\n", to: home.path + "/ollama.key")
        func local(_ word: String) -> String {
            if word.hasPrefix("/run/secrets/") { return secrets + "/" + word.dropFirst("/run/secrets/".count) }
            if word == "http://127.0.0.1:8787/api/v1" { return sandbox.baseURL.absoluteString }
            return word
        }

        var environment = ["MOLTIPASS_PASSPHRASE_FILE": ""]
        var ran: [String] = []
        for line in lines {
            var words = try Self.words(line).map(local)
            if words.first == "export", words.count == 2, let equals = words[1].firstIndex(of: "=") {
                environment[String(words[1][..<equals])] = local(String(words[1][words[1].index(after: equals)...]))
                continue
            }
            #expect(words.first == "moltipass", "README line is neither export nor moltipass: \(line)")
            guard words.first == "moltipass" else { continue }
            words.removeFirst()
            var stdin: String?
            var stdoutFile: String?
            if let index = words.firstIndex(of: "<") {
                stdin = try String(contentsOfFile: home.path + "/" + words[index + 1], encoding: .utf8)
                words.removeSubrange(index...(index + 1))
            }
            if let index = words.firstIndex(of: ">") {
                stdoutFile = home.path + "/" + words[index + 1]
                words.removeSubrange(index...(index + 1))
            }
            let command = words.prefix(2).joined(separator: " ")
            var expected: Int32 = 0
            switch command {
            case "keys init": words += ["--scrypt-log2n", "10"]
            case "keys verify":
                words += ["--base-url", sandbox.baseURL.absoluteString]
                expected = 77  // the example key is not a real one: "invalid"
            case _ where words.first == "register": words += ["--base-url", sandbox.baseURL.absoluteString]
            case _ where words.first == "claim": try await claimOnSandbox(sandbox, words[1])
            default: break
            }
            let result = try await home.run(words, stdin: stdin, extra: environment, recorded: stdoutFile == nil)
            #expect(result.status == expected, "\(line)\n\(result.stderr)")
            if let stdoutFile { try result.stdout.write(toFile: stdoutFile, atomically: true, encoding: .utf8) }
            ran.append(words.first == "keys" ? command + (words.contains("--model") ? " --model" : "") : words[0])
        }
        #expect(ran.contains("keys remove") && ran.contains("claim") && ran.contains("keys passwd"))
        #expect(ran.contains("keys add --model") && ran.contains("keys remove --model"))
        #expect(try String(contentsOfFile: home.path + "/reef_scout.key", encoding: .utf8) == Self.key + "\n")
        #expect(try await home.run(["keys", "list"], extra: environment).stdout.contains("claimed"))
        home.expectNoLeak(of: [Self.key, Self.modelKey])
    }

    /// The lines of the `sh` blocks in the README's Keychain section, comments removed.
    static func shellLines() throws -> [String] {
        let readme = try String(
            contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let start = readme.range(of: "\n## Keychain\n") else { return [] }
        let rest = readme[start.upperBound...]
        let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        var lines: [String] = []
        var inShell = false
        for line in section.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inShell = !inShell && line == "```sh"
                continue
            }
            if inShell, !line.trimmingCharacters(in: .whitespaces).isEmpty { lines.append(String(line)) }
        }
        return lines
    }

    /// Shell words: whitespace-separated, single and double quotes, `#` starting a comment word.
    static func words(_ line: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                inWord = true
            case " ", "\t":
                if inWord { words.append(current) }
                current = ""
                inWord = false
            case "#" where !inWord:
                return words
            default:
                current.append(character)
                inWord = true
            }
        }
        if quote != nil { throw CocoaError(.formatting) }
        if inWord { words.append(current) }
        return words
    }
}
