import Foundation
import MoltbookAPI
import MoltipassTesting
import Testing

/// docs/moltipass.1, generated from the binary's help by `scripts/man`, is up to date: every
/// command, option, abstract and discussion the binary's help has (`--experimental-dump-help`,
/// what the generator reads) is in the page, and the page names no option the binary lacks.
@Suite("man page")
struct ManPageTests {
    /// One command of the help: its path, texts and displayed options.
    struct Command {
        var path: [String]
        var texts: [String]
        var options: Set<String>
    }

    /// The commands of the dumped help, depth first.
    static func commands(_ json: JSONValue, path: [String] = []) -> [Command] {
        let name = json["commandName"]?.string ?? ""
        let here = path + [name]
        var texts = [json["abstract"]?.string, json["discussion"]?.string].compactMap { $0 }
        var options: Set<String> = []
        for argument in json["arguments"]?.array ?? [] where argument["shouldDisplay"]?.bool != false {
            texts += [argument["abstract"]?.string, argument["discussion"]?.string].compactMap { $0 }
            for spelling in argument["names"]?.array ?? [] {
                guard let kind = spelling["kind"]?.string, let text = spelling["name"]?.string else { continue }
                options.insert(kind == "short" ? "-" + text : "--" + text)
            }
        }
        let own = Command(path: here, texts: texts.filter { !$0.isEmpty }, options: options)
        return [own] + (json["subcommands"]?.array ?? []).flatMap { commands($0, path: here) }
    }

    /// Text with the page's escapes undone and white space collapsed.
    static func normalized(_ text: String) -> String {
        text.replacingOccurrences(of: #"\(dq"#, with: "\"").replacingOccurrences(of: #"\&"#, with: "")
            .replacingOccurrences(of: #"\e"#, with: "\\")
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Every help text and option of every command is in docs/moltipass.1, the page has no
    /// option the binary lacks, and the help is ASCII (the generator drops other characters).
    @Test func pageMatchesTheHelp() async throws {
        let dump = try await ProcessRunner.run("moltipass", ["--experimental-dump-help"])
        #expect(dump.status == 0)
        let commands = Self.commands(try JSONValue.parse(Data(dump.stdout.utf8))["command"] ?? .null)
        #expect(commands.count >= 15)
        let page = try String(
            contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/moltipass.1"), encoding: .utf8)
        let text = Self.normalized(
            page.split(separator: "\n").map { line in
                // Macro lines: keep their words (`.It Fl -max-wait Ar duration` → `-max-wait duration`).
                line.hasPrefix(".")
                    ? line.split(separator: " ").dropFirst().filter {
                        !["Fl", "Ar", "Em", "Op", "Oo", "Oc"].contains($0)
                    }
                    .joined(separator: " ") : String(line)
            }.joined(separator: "\n"))
        let stale = "docs/moltipass.1 is out of date: run scripts/man"
        for command in commands {
            #expect(
                page.contains("Em \(command.path.last ?? "")") || command.path.count == 1, "\(command.path) \(stale)")
            for help in command.texts {
                #expect(help.unicodeScalars.allSatisfy { $0.isASCII }, "\(command.path): not ASCII: \(help)")
                #expect(text.contains(Self.normalized(help)), "\(command.path): \(help) — \(stale)")
            }
        }
        // `.It Fl -max-wait Ar duration`, `.It Fl h , -help`: `Fl` adds one dash to each name.
        let documented = Set(
            page.split(separator: "\n").filter { $0.hasPrefix(".It Fl ") }.flatMap { line in
                line.dropFirst(".It Fl ".count).split(separator: " Ar ").first.map {
                    $0.split(separator: " , ").map { "-" + $0.trimmingCharacters(in: .whitespaces) }
                } ?? []
            })
        let actual = commands.reduce(into: Set<String>()) { $0.formUnion($1.options) }
        #expect(documented == actual, "\(documented.symmetricDifference(actual)) — \(stale)")
    }
}
